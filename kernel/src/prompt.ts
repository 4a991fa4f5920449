import { isoNow } from './clock.ts';
import { tapped, type Hooks } from './hooks.ts';
import type {
  AgentDefinition, Message, Prompt, PromptSection, RunContext, SkillRef, Tool, ToolCall, ToolSpec,
} from './types.ts';

/** A turn: a user message and everything after it up to the next user message. */
export function groupTurns(messages: Message[]): Message[][] {
  const turns: Message[][] = [];
  for (const m of messages) {
    if (m.role === 'user' || turns.length === 0) turns.push([m]);
    else turns[turns.length - 1]!.push(m);
  }
  return turns;
}

/** How many turns {@link groupTurns} makes of the messages, without making them. */
export function turnCount(messages: Message[]): number {
  let n = 0;
  for (let i = 0; i < messages.length; i++) if (i === 0 || messages[i]!.role === 'user') n++;
  return n;
}

/**
 * Makes stored history safe to send: a tool call whose result was never recorded (a crash
 * mid-step) gets an error result saying so, and a tool result without its call is dropped.
 * Providers reject either, so the model would never recover otherwise.
 */
export function repairHistory(messages: Message[]): Message[] {
  return isWhole(messages) ? messages.slice() : repair(messages);
}

function repair(messages: Message[]): Message[] {
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

/**
 * True when every tool call has its result right after its response, in call order, and every
 * result has its call: what a history the loop wrote looks like, and what needs no repair.
 */
function isWhole(messages: Message[]): boolean {
  let open: ToolCall[] | undefined;
  let next = 0;
  for (const m of messages) {
    if (m.role === 'tool') {
      if (!open || next >= open.length || open[next]!.id !== m.toolCallId) return false;
      next++;
      continue;
    }
    if (open && next < open.length) return false;
    open = m.role === 'assistant' && m.toolCalls?.length ? m.toolCalls : undefined;
    next = 0;
  }
  return !open || next === open.length;
}

/** The system sections from AGENT.md, bootstrap files, the skill index and the clock. */
export function systemSections(agent: AgentDefinition, now?: Date): PromptSection[] {
  const sections: PromptSection[] = [];
  if (agent.instructions) sections.push({ id: 'agent', content: agent.instructions });
  for (const b of agent.bootstrap) if (b.content) sections.push({ id: b.name, title: b.name, content: b.content });
  if (agent.skills.length) sections.push({ id: 'skills', title: 'Skills', content: skillIndex(agent.skills) });
  sections.push({ id: 'time', title: 'Current time', content: now ? now.toISOString() : isoNow() });
  return sections;
}

// An agent's skill list is the same object in every iteration of a run: its index is written once.
const skillIndexes = new WeakMap<SkillRef[], string>();
function skillIndex(skills: SkillRef[]): string {
  let text = skillIndexes.get(skills);
  if (text === undefined) {
    text = 'Read a skill file with read_file when the task matches it.\n' + skills.map((s) => `- ${s.name}: ${s.description} (${s.path})`).join('\n');
    skillIndexes.set(skills, text);
  }
  return text;
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

const sectionText = (s: PromptSection) => (s.title ? `## ${s.title}\n\n${s.content}` : s.content);
/** A message's size in the prompt: its text, and an assistant message's tool calls as JSON. */
export const messageSize = (m: Message): number =>
  m.content.length + (m.role === 'assistant' && m.toolCalls ? jsonLength(m.toolCalls) : 0);

/** What JSON escapes in a string: quote, backslash, control characters, surrogates (a lone one is escaped). */
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * `JSON.stringify(value).length` without making the string (about twice as quick for a tool
 * call): plain objects, arrays, strings without escapes, numbers, booleans and null are
 * measured here; anything else (escapes, `toJSON`, class instances) by JSON.stringify itself.
 */
export function jsonLength(value: unknown): number {
  switch (typeof value) {
    case 'string': return ESCAPED.test(value) ? JSON.stringify(value).length : value.length + 2;
    case 'number': return Number.isFinite(value) ? String(value).length : 4;
    case 'boolean': return value ? 4 : 5;
    case 'object': {
      if (value === null) return 4;
      if (Array.isArray(value)) {
        let n = value.length > 0 ? value.length + 1 : 2;
        for (const item of value) n += item === undefined || typeof item === 'function' || typeof item === 'symbol' ? 4 : jsonLength(item);
        return n;
      }
      const proto = Object.getPrototypeOf(value);
      if ((proto !== Object.prototype && proto !== null) || typeof (value as { toJSON?: unknown }).toJSON === 'function') return JSON.stringify(value).length;
      let n = 2;
      let fields = 0;
      for (const key in value) {
        const item = (value as Record<string, unknown>)[key];
        if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
        n += (fields++ ? 1 : 0) + jsonLength(key) + 1 + jsonLength(item);
      }
      return n;
    }
    default: return JSON.stringify(value)?.length ?? 0;
  }
}
// Messages never change once made (cuts make new objects): the JSON of a message's tool calls
// is measured once, however many iterations ask for it.
const sizes = new WeakMap<Message, number>();
const messageChars = (m: Message): number => {
  if (m.role !== 'assistant' || !m.toolCalls) return m.content.length;
  let n = sizes.get(m);
  if (n === undefined) sizes.set(m, n = messageSize(m));
  return n;
};
/** The length of `sectionText(s)`, without building it. */
const sectionChars = (s: PromptSection) => (s.title ? s.title.length + 5 : 0) + s.content.length;
// A tool's JSON is the same in every iteration of a run (specs are not changed once made):
// the size of the tools' JSON array is the sum of its items, the commas and the brackets.
const toolSizes = new WeakMap<ToolSpec, number>();
const toolsChars = (tools: ToolSpec[]): number => {
  let n = 2 + Math.max(0, tools.length - 1);
  for (const t of tools) {
    let size = toolSizes.get(t);
    if (size === undefined) toolSizes.set(t, size = JSON.stringify(t).length);
    n += size;
  }
  return n;
};
/** The size of a history ({@link messageSize} summed), each assistant message's tool calls measured once. */
export const historyChars = (history: Message[]): number => {
  let n = 0;
  for (const m of history) n += messageChars(m);
  return n;
};
/** Everything but the history: tools and sections. */
const fixedChars = (p: Prompt): number => {
  let n = toolsChars(p.tools);
  for (const s of p.system) n += sectionChars(s) + 2;
  for (const s of p.memory) n += sectionChars(s) + 2;
  return n;
};
/** The size of the prompt's text: sections, history and the tools' JSON. */
export const promptChars = (p: Prompt) => fixedChars(p) + historyChars(p.history);

// A tool's spec is made once per tool object (registered tools live as long as the kernel), so
// its JSON size below is measured once too.
const specs = new WeakMap<Tool, ToolSpec>();
/** What the model is told about a tool: its name, description and input schema. */
export function toolSpec(tool: Tool): ToolSpec {
  let spec = specs.get(tool);
  if (!spec) specs.set(tool, spec = { name: tool.name, description: tool.description, inputSchema: tool.inputSchema });
  return spec;
}

/** Cuts a tool result to `max` characters, keeping head and tail and saying how much was cut and why. */
export function cutText(text: string, max: number, why = 'to fit the context budget'): string {
  if (text.length <= max) return text;
  const marker = `\n[… cut ${(text.length - max).toLocaleString('en-US')} of ${text.length.toLocaleString('en-US')} characters ${why} …]\n`;
  const keep = Math.max(0, max - marker.length);
  const head = Math.ceil(keep * 0.75);
  return text.slice(0, head) + marker + text.slice(text.length - (keep - head));
}

/** What {@link buildPrompt} builds from. */
export interface PromptInput {
  hooks: Hooks;
  run: RunContext;
  history: Message[];
  tools: ToolSpec[];
  estimator: TokenEstimator;
  /** Stored positions of history messages, to let trimContext taps deduplicate. */
  seqOf?: (m: Message) => number | undefined;
  /** Turns already reported to trimContext in this run. */
  trimmed?: WeakSet<Message>;
  /** The size of `history` ({@link historyChars}), when the caller keeps it as the history grows. */
  historyChars?: number;
}

/** The messages to send, the prompt with its report of what went in and what was cut, and its size in characters ({@link promptChars}). */
export interface BuiltPrompt { messages: Message[]; prompt: Prompt; chars: number }

/**
 * Builds the prompt for one iteration: the four sections in order, `beforePrompt`, then the
 * token budget (long tool results cut, older turns dropped whole after `trimContext` has
 * seen them). A promise only when a hook has to be called (a `beforePrompt` tap, turns
 * leaving): the loop's usual step builds its prompt without one.
 */
export function buildPrompt(input: PromptInput): BuiltPrompt | Promise<BuiltPrompt> {
  const { hooks, run } = input;
  const whole = isWhole(input.history);
  const prompt: Prompt = {
    system: systemSections(run.agent),
    memory: [],
    history: whole ? input.history.slice() : repair(input.history),
    tools: input.tools,
    report: { injected: [], cut: [], estimatedTokens: 0 },
  };
  // The caller's size holds for the history as given: not repaired, and no tap to change it.
  if (tapped(hooks.beforePrompt)) return hooks.beforePrompt.promise(prompt, run).then((p) => fit(input, p, undefined));
  return fit(input, prompt, whole ? input.historyChars : undefined);
}

/** A prompt being fitted to the token budget; its history is copied before a message in it is replaced (it may be a tap's). */
interface Fitting {
  input: PromptInput;
  prompt: Prompt;
  history: Message[];
  own: boolean;
  budgetChars: number;
  /** The size of everything but the history. */
  fixed: number;
  total: number;
}

function replace(f: Fitting, i: number, m: Message): void {
  if (!f.own) { f.history = f.history.slice(); f.own = true; }
  f.history[i] = m;
}

function fit(input: PromptInput, prompt: Prompt, knownChars: number | undefined): BuiltPrompt | Promise<BuiltPrompt> {
  const budgetChars = input.run.agent.settings.context_tokens * input.estimator.charsPerToken;
  const f: Fitting = { input, prompt, history: prompt.history, own: false, budgetChars, fixed: fixedChars(prompt), total: 0 };

  // 1. No single tool result may take more than a quarter of the budget.
  const maxTool = Math.max(2_000, Math.floor(budgetChars / 4));
  for (let i = 0; i < f.history.length; i++) {
    const m = f.history[i]!;
    if (m.role !== 'tool' || m.content.length <= maxTool) continue;
    prompt.report.cut.push({ section: `tool:${m.name}`, chars: m.content.length - maxTool, reason: 'tool result over a quarter of context_tokens' });
    const content = cutText(m.content, maxTool);
    if (knownChars !== undefined) knownChars -= m.content.length - content.length;
    replace(f, i, { ...m, content });
  }
  f.total = f.fixed + (knownChars ?? historyChars(f.history));

  // 2. Drop the oldest turns whole while over budget, keeping the current one.
  if (f.total > budgetChars) {
    const turns = groupTurns(f.history);
    if (turns.length > 1) return dropTurns(f, turns).then(() => finish(f));
  }
  return finish(f);
}

async function dropTurns(f: Fitting, turns: Message[][]): Promise<void> {
  const { input, prompt } = f;
  let drop = 0;
  while (f.total > f.budgetChars && drop < turns.length - 1) f.total -= historyChars(turns[drop++]!);
  const dropped = turns.slice(0, drop);
  const fresh = dropped.filter((t) => !input.trimmed?.has(t[0]!));
  if (fresh.length) {
    await input.hooks.trimContext.promise({ run: input.run, reason: 'budget', turns: fresh.map((t) => ({ firstSeq: input.seqOf?.(t[0]!), messages: t })) });
    for (const t of fresh) input.trimmed?.add(t[0]!);
  }
  prompt.report.cut.push({ section: 'history', chars: historyChars(dropped.flat()), reason: `${drop} older turn(s) dropped for context_tokens` });
  f.history = turns.slice(drop).flat();
  f.own = true;
}

function finish(f: Fitting): BuiltPrompt {
  const { prompt, budgetChars } = f;
  // 3. Still over: shrink the current turn's tool results, oldest first.
  for (let i = 0; i < f.history.length && f.total > budgetChars; i++) {
    const m = f.history[i]!;
    if (m.role === 'tool' && m.content.length > 200) {
      const target = Math.max(200, m.content.length - (f.total - budgetChars));
      prompt.report.cut.push({ section: `tool:${m.name}`, chars: m.content.length - target, reason: 'current turn over context_tokens' });
      const cut: Message = { ...m, content: cutText(m.content, target) };
      replace(f, i, cut);
      f.total += messageChars(cut) - messageChars(m);
    }
  }
  const history = prompt.history = f.history;

  const { report } = prompt;
  for (const s of prompt.system) report.injected.push({ section: s.id, chars: s.content.length });
  for (const s of prompt.memory) report.injected.push({ section: s.id, chars: s.content.length });
  report.injected.push({ section: 'history', chars: f.total - f.fixed });
  report.injected.push({ section: 'tools', chars: toolsChars(prompt.tools) });
  report.estimatedTokens = f.input.estimator.estimate(f.total);

  let system = '';
  let sections = 0;
  for (const s of prompt.system) system += (sections++ ? '\n\n' : '') + sectionText(s);
  for (const s of prompt.memory) system += (sections++ ? '\n\n' : '') + sectionText(s);
  const messages: Message[] = [{ role: 'system', content: system }];
  for (const m of history) messages.push(m);
  return { messages, prompt, chars: f.total };
}
