import type { Message, ToolSpec } from '@oryxos/provider-spec';
import type { Hooks } from './hooks.ts';
import { fitHistory, repairHistory, type TokenEstimator } from '@oryxos/history';
import type { AgentDefinition, Prompt, PromptSection, RunContext } from './types.ts';

/**
 * The system sections, most stable first: the agent's instructions, the project files, the
 * skill index, then today's date (the run's start day, so a run never changes it; the time of
 * day is the `current_time` tool's, since a clock in the prompt would make every request new
 * to the provider's cache).
 */
export function systemSections(agent: AgentDefinition, startedAt: string): PromptSection[] {
  const sections: PromptSection[] = [];
  if (agent.instructions) sections.push({ id: 'agent', content: agent.instructions });
  for (const b of agent.bootstrap) sections.push({ id: b.name, title: b.name, content: b.content });
  if (agent.skills.length) {
    sections.push({
      id: 'skills', title: 'Skills',
      content: `Read a skill file with read_file when the task matches it.\n${agent.skills.map((s) => `- ${s.name}: ${s.description} (${s.path})`).join('\n')}`,
    });
  }
  sections.push({ id: 'date', title: 'Date', content: `Today is ${startedAt.slice(0, 10)} (UTC).` });
  return sections;
}

const sectionText = (s: PromptSection) => (s.title ? `## ${s.title}\n\n${s.content}` : s.content);

/** What one step's prompt is built from. */
export interface PromptInput {
  hooks: Hooks;
  run: RunContext;
  history: readonly Message[];
  tools: readonly ToolSpec[];
  estimator: TokenEstimator;
  /** Turns an earlier step of this run dropped for the budget: they stay out. */
  dropped: number;
  /** Whether the model takes image parts; without it each becomes a short note. */
  images: boolean;
  /** The last, tool-less call's instruction, after the history. */
  finalNote?: string;
}

/** The messages to send, the prompt with its report, the turns it dropped for the budget, and its size in characters. */
export interface BuiltPrompt { messages: Message[]; prompt: Prompt; dropped: Message[][]; chars: number }

/**
 * Builds one step's prompt: tool definitions by name, the system sections, `prepareStep` (memory
 * and other plugins add their sections), then the history fitted to `context_tokens`. Nothing in
 * it changes from one step of a run to the next but what the history gained, so each request
 * starts with the bytes of the one before.
 */
export async function buildPrompt(input: PromptInput): Promise<BuiltPrompt> {
  const { run } = input;
  const tools = input.finalNote ? [] : [...input.tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  let prompt: Prompt = {
    tools, system: systemSections(run.agent, run.startedAt), memory: [], history: repairHistory(input.history),
    report: { injected: [], cut: [], estimatedTokens: 0 },
  };
  prompt = await input.hooks.prepareStep.promise(prompt, run);
  const sections = [...prompt.system, ...prompt.memory];
  const system = sections.map(sectionText).join('\n\n');
  const toolChars = JSON.stringify(prompt.tools).length;
  const budget = run.agent.settings.context_tokens * input.estimator.charsPerToken;
  const fitted = fitHistory(prompt.history, budget, system.length + toolChars, input.dropped);
  prompt.history = fitted.history;
  const { report } = prompt;
  report.cut.push(...fitted.cut);
  for (const s of sections) report.injected.push({ section: s.id, chars: s.content.length });
  report.injected.push({ section: 'history', chars: fitted.chars - system.length - toolChars }, { section: 'tools', chars: toolChars });
  report.estimatedTokens = input.estimator.estimate(fitted.chars);
  const messages: Message[] = [{ role: 'system', content: system }, ...(input.images ? fitted.history : fitted.history.map(withoutImages))];
  if (input.finalNote) messages.push({ role: 'system', content: input.finalNote });
  return { messages, prompt, dropped: fitted.dropped, chars: fitted.chars };
}

/** A message whose images the model cannot take: each becomes a note in the text. */
function withoutImages(m: Message): Message {
  if ((m.role !== 'user' && m.role !== 'tool') || !m.parts?.length) return m;
  const notes = m.parts.map((p) => `[${p.type === 'image' ? 'image' : 'file'}${p.name ? ` ${p.name}` : ''}: ${p.mediaType}, ${Math.floor(p.data.length * 0.75)} bytes — this model does not take ${p.type}s]`);
  const { parts: _parts, ...rest } = m;
  return { ...rest, content: [m.content, ...notes].filter(Boolean).join('\n') } as Message;
}
