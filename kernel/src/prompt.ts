import type { Hooks } from './hooks.ts';
import type {
  AgentDefinition, Message, Prompt, PromptReport, PromptSection, RunContext, ToolCall, ToolSpec,
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

/**
 * Makes stored history safe to send: a tool call whose result was never recorded (a crash
 * mid-step) gets an error result saying so, and a tool result without its call is dropped.
 * Providers reject either, so the model would never recover otherwise.
 */
export function repairHistory(messages: Message[]): Message[] {
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

/** The system sections from AGENT.md, bootstrap files, the skill index and the clock. */
export function systemSections(agent: AgentDefinition, now = new Date()): PromptSection[] {
  const sections: PromptSection[] = [];
  if (agent.instructions) sections.push({ id: 'agent', content: agent.instructions });
  for (const b of agent.bootstrap) if (b.content) sections.push({ id: b.name, title: b.name, content: b.content });
  if (agent.skills.length) {
    sections.push({
      id: 'skills',
      title: 'Skills',
      content: 'Read a skill file with read_file when the task matches it.\n'
        + agent.skills.map((s) => `- ${s.name}: ${s.description} (${s.path})`).join('\n'),
    });
  }
  sections.push({ id: 'time', title: 'Current time', content: now.toISOString() });
  return sections;
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
// Sizes are asked for every iteration over the whole history; messages never change once
// made (cuts make new objects), so each size is computed once.
const sizes = new WeakMap<Message, number>();
const messageChars = (m: Message): number => {
  let n = sizes.get(m);
  if (n === undefined) {
    n = m.content.length + (m.role === 'assistant' && m.toolCalls ? JSON.stringify(m.toolCalls).length : 0);
    sizes.set(m, n);
  }
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
export const promptChars = (p: Prompt) => {
  let n = toolsChars(p.tools);
  for (const s of p.system) n += sectionChars(s) + 2;
  for (const s of p.memory) n += sectionChars(s) + 2;
  for (const m of p.history) n += messageChars(m);
  return n;
};

/** Cuts a tool result to `max` characters, keeping head and tail and saying how much was cut and why. */
export function cutText(text: string, max: number, why = 'to fit the context budget'): string {
  if (text.length <= max) return text;
  const marker = `\n[… cut ${(text.length - max).toLocaleString('en-US')} of ${text.length.toLocaleString('en-US')} characters ${why} …]\n`;
  const keep = Math.max(0, max - marker.length);
  const head = Math.ceil(keep * 0.75);
  return text.slice(0, head) + marker + text.slice(text.length - (keep - head));
}

/**
 * Builds the prompt for one iteration: the four sections in order, `beforePrompt`, then the
 * token budget (long tool results cut, older turns dropped whole after `trimContext` has
 * seen them). Returns the messages to send and the report of what went in and what was cut.
 */
export async function buildPrompt(input: {
  hooks: Hooks;
  run: RunContext;
  history: Message[];
  tools: ToolSpec[];
  estimator: TokenEstimator;
  /** Stored positions of history messages, to let trimContext taps deduplicate. */
  seqOf?: (m: Message) => number | undefined;
  /** Turns already reported to trimContext in this run. */
  trimmed?: WeakSet<Message>;
}): Promise<{ messages: Message[]; prompt: Prompt }> {
  const { hooks, run, estimator } = input;
  const report: PromptReport = { injected: [], cut: [], estimatedTokens: 0 };
  let prompt: Prompt = {
    system: systemSections(run.agent),
    memory: [],
    history: repairHistory(input.history),
    tools: input.tools,
    report,
  };
  prompt = await hooks.beforePrompt.promise(prompt, run);
  const budgetChars = run.agent.settings.context_tokens * estimator.charsPerToken;

  // 1. No single tool result may take more than a quarter of the budget.
  const maxTool = Math.max(2_000, Math.floor(budgetChars / 4));
  prompt.history = prompt.history.map((m) => {
    if (m.role !== 'tool' || m.content.length <= maxTool) return m;
    prompt.report.cut.push({ section: `tool:${m.name}`, chars: m.content.length - maxTool, reason: 'tool result over a quarter of context_tokens' });
    return { ...m, content: cutText(m.content, maxTool) };
  });

  // 2. Drop the oldest turns whole while over budget, keeping the current one.
  let turns = groupTurns(prompt.history);
  if (promptChars(prompt) > budgetChars && turns.length > 1) {
    const fixed = promptChars({ ...prompt, history: [] });
    let total = fixed + prompt.history.reduce((n, m) => n + messageChars(m), 0);
    let drop = 0;
    while (total > budgetChars && drop < turns.length - 1) total -= turns[drop++]!.reduce((n, m) => n + messageChars(m), 0);
    const dropped = turns.slice(0, drop);
    const fresh = dropped.filter((t) => !input.trimmed?.has(t[0]!));
    if (fresh.length) {
      await hooks.trimContext.promise({ run, reason: 'budget', turns: fresh.map((t) => ({ firstSeq: input.seqOf?.(t[0]!), messages: t })) });
      for (const t of fresh) input.trimmed?.add(t[0]!);
    }
    prompt.report.cut.push({ section: 'history', chars: dropped.flat().reduce((n, m) => n + messageChars(m), 0), reason: `${drop} older turn(s) dropped for context_tokens` });
    turns = turns.slice(drop);
    prompt.history = turns.flat();
  }

  // 3. Still over: shrink the current turn's tool results, oldest first.
  prompt.history = [...prompt.history];
  for (let i = 0; i < prompt.history.length; i++) {
    const m = prompt.history[i]!;
    if (promptChars(prompt) <= budgetChars) break;
    if (m.role === 'tool' && m.content.length > 200) {
      const target = Math.max(200, m.content.length - (promptChars(prompt) - budgetChars));
      prompt.report.cut.push({ section: `tool:${m.name}`, chars: m.content.length - target, reason: 'current turn over context_tokens' });
      prompt.history[i] = { ...m, content: cutText(m.content, target) };
    }
  }

  for (const s of [...prompt.system, ...prompt.memory]) prompt.report.injected.push({ section: s.id, chars: s.content.length });
  prompt.report.injected.push({ section: 'history', chars: prompt.history.reduce((n, m) => n + messageChars(m), 0) });
  prompt.report.injected.push({ section: 'tools', chars: toolsChars(prompt.tools) });
  prompt.report.estimatedTokens = estimator.estimate(promptChars(prompt));

  const system = [...prompt.system, ...prompt.memory].map(sectionText).join('\n\n');
  return { messages: [{ role: 'system', content: system }, ...prompt.history], prompt };
}
