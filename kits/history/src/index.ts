/**
 * @oryxos/history: the kernel's default history strategy, as pure functions: which turns of a session a prompt holds,
 * what a tool result may take of the budget, and how a history is made safe to send. Trims
 * come in blocks, so that turn after turn the prompt starts with the same bytes and a provider
 * can serve it from its prompt cache.
 */
import type { Message, ToolCall } from '@oryxos/provider-spec';

/** A turn: a user message and everything after it up to the next user message. */
export function groupTurns(messages: readonly Message[]): Message[][] {
  const turns: Message[][] = [];
  for (const m of messages) {
    if (m.role === 'user' || turns.length === 0) turns.push([m]);
    else turns[turns.length - 1]!.push(m);
  }
  return turns;
}

/**
 * How many of a session's `total` turns come before the prompt's window: none while the
 * session fits in `maxTurns`; after that the window's start moves in blocks of half the window,
 * so between two moves every prompt extends the one before it (a sliding window would change
 * the prompt's first bytes on every turn). The window then holds between `maxTurns - block + 1`
 * and `maxTurns` turns.
 *
 * @example
 * windowStart(20, 20) // 0
 * windowStart(21, 20) // 10: turns 11–21 stay, and stay the prompt's start until turn 30
 * windowStart(31, 20) // 20
 */
export function windowStart(total: number, maxTurns: number): number {
  if (total <= maxTurns) return 0;
  const block = Math.max(1, Math.ceil(maxTurns / 2));
  return Math.ceil((total - maxTurns) / block) * block;
}

/**
 * Makes a history safe to send: a tool call whose result was never recorded gets an error result
 * saying so, and a tool result without its call is dropped (providers reject either). A history
 * the loop wrote needs nothing and comes back as it is.
 */
export function repairHistory(messages: readonly Message[]): Message[] {
  const out: Message[] = [];
  let open: ToolCall[] = [];
  const closeOpen = () => {
    for (const call of open) {
      out.push({ role: 'tool', toolCallId: call.id, name: call.name, content: 'No result was recorded for this call (the run was interrupted).', isError: true });
    }
    open = [];
  };
  for (const m of messages) {
    if (m.role === 'tool') {
      const i = open.findIndex((c) => c.id === m.toolCallId);
      if (i === -1) continue;
      open.splice(i, 1);
      out.push(m);
      continue;
    }
    closeOpen();
    out.push(m);
    if (m.role === 'assistant' && m.toolCalls?.length) open = [...m.toolCalls];
  }
  closeOpen();
  return out;
}

/** The calls of the history's last response that have no result yet (a suspended or interrupted step). */
export function openCalls(messages: readonly Message[]): { response: Message & { role: 'assistant' }; calls: ToolCall[] } | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === 'user') return undefined;
    if (m.role !== 'assistant' || !m.toolCalls?.length) continue;
    const answered = new Set(messages.slice(i + 1).flatMap((r) => (r.role === 'tool' ? [r.toolCallId] : [])));
    const calls = m.toolCalls.filter((c) => !answered.has(c.id));
    return calls.length ? { response: m, calls } : undefined;
  }
  return undefined;
}

/**
 * The size of an assistant message's tool calls as JSON, once a message: every step of a run
 * measures the whole history again, and writing the calls out each time made the measure
 * quadratic in the run's length (5 % of an in-memory loop step at 10 steps, bench/README.md).
 */
const callChars = new WeakMap<readonly ToolCall[], number>();

/** A message's size in the prompt: its text, and an assistant message's tool calls as JSON. */
export function messageChars(m: Message): number {
  if (m.role !== 'assistant' || !m.toolCalls) return m.content.length;
  let calls = callChars.get(m.toolCalls);
  if (calls === undefined) callChars.set(m.toolCalls, (calls = JSON.stringify(m.toolCalls).length));
  return m.content.length + calls;
}

/** Cuts a text to `max` characters, keeping head and tail and saying how much was cut and why. */
export function cutText(text: string, max: number, why = 'to fit the context budget'): string {
  if (text.length <= max) return text;
  const marker = `\n[… cut ${(text.length - max).toLocaleString('en-US')} of ${text.length.toLocaleString('en-US')} characters ${why} …]\n`;
  const keep = Math.max(0, max - marker.length);
  const head = Math.ceil(keep * 0.75);
  return text.slice(0, head) + marker + text.slice(text.length - (keep - head));
}

/** What {@link fitHistory} did, for the prompt report. */
export interface Fitted {
  history: Message[];
  /** Whole turns dropped from the start (never the current one). */
  dropped: Message[][];
  cut: { section: string; chars: number; reason: string }[];
  chars: number;
}

/**
 * Fits a history into `budgetChars` beside `fixedChars` of tools and system text: no tool result
 * over a quarter of the budget (cut the same way every time, so the prompt stays stable);
 * then, when still over, the oldest turns leave whole — at least `keepFrom` of them (what an
 * earlier step of the run already dropped, so a cut never comes back), and enough to take a
 * whole number of quarter budgets, so the prompt lands between three quarters of the budget
 * and all of it and the following steps and turns grow from one stable start again; then, when
 * the current turn alone is over, its tool results shrink, oldest first.
 */
export function fitHistory(history: readonly Message[], budgetChars: number, fixedChars: number, keepFrom = 0): Fitted {
  const cut: Fitted['cut'] = [];
  const maxTool = Math.max(2_000, Math.floor(budgetChars / 4));
  let messages = history.map((m) => {
    if (m.role !== 'tool' || m.content.length <= maxTool) return m;
    cut.push({ section: `tool:${m.name}`, chars: m.content.length - maxTool, reason: 'tool result over a quarter of context_tokens' });
    return { ...m, content: cutText(m.content, maxTool) };
  });
  const size = (ms: readonly Message[]) => ms.reduce((n, m) => n + messageChars(m), 0);
  let chars = fixedChars + size(messages);
  const turns = groupTurns(messages);
  let drop = Math.min(keepFrom, turns.length - 1);
  if (chars > budgetChars) {
    // The cut takes whole quarters of the budget from the oldest turns: as many as the prompt is
    // over by, plus one. Later turns only add at the end, so the next prompts find the same cut,
    // and the same first bytes, until another quarter of the budget has come in.
    const quarter = budgetChars / 4;
    let need = (Math.floor((chars - budgetChars) / quarter) + 1) * quarter;
    let cutAt = 0;
    while (need > 0 && cutAt < turns.length - 1) need -= size(turns[cutAt++]!);
    drop = Math.max(drop, cutAt);
  }
  if (drop) chars = fixedChars + size(turns.slice(drop).flat());
  const dropped = turns.slice(0, drop);
  if (drop) {
    cut.push({ section: 'history', chars: size(dropped.flat()), reason: `${drop} older turn(s) dropped for context_tokens` });
    messages = turns.slice(drop).flat();
  }
  for (let i = 0; i < messages.length && chars > budgetChars; i++) {
    const m = messages[i]!;
    if (m.role !== 'tool' || m.content.length <= 200) continue;
    const target = Math.max(200, m.content.length - (chars - budgetChars));
    cut.push({ section: `tool:${m.name}`, chars: m.content.length - target, reason: 'current turn over context_tokens' });
    const shorter = { ...m, content: cutText(m.content, target) };
    chars += shorter.content.length - m.content.length;
    messages = [...messages.slice(0, i), shorter, ...messages.slice(i + 1)];
  }
  return { history: messages, dropped, cut, chars };
}

/** Estimates tokens from characters, calibrated by what the provider last reported. */
export class TokenEstimator {
  charsPerToken = 4;
  estimate(chars: number): number { return Math.ceil(chars / this.charsPerToken); }
  /** Learns the ratio from a prompt's size and the provider's reported input tokens. */
  calibrate(chars: number, inputTokens: number): void {
    if (inputTokens > 0 && chars > 0) this.charsPerToken = Math.min(8, Math.max(1, chars / inputTokens));
  }
}
