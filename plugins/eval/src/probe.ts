/**
 * What `oryx eval` adds to the kernel of each case: the providers that answer from the case's
 * cassette (replay) or record into it (record), and a `prepareStep` observer that prints the
 * prompt's stable parts so a replay diverges when the agent's prompt or tools changed.
 */
import { STAGE, pluginPackage, type Plugin } from '@oryxos/kernel';
import type { ChatRequest, Provider } from '@oryxos/provider-spec';
import { promptPrint, recordProvider, replayProvider, type PromptPrint } from '@oryxos/provider-kit/cassette';

/** How a case's model calls are answered. */
export type EvalMode = 'replay' | 'live' | 'record';

/** The provider a replayed case runs on. */
export const REPLAY_PROVIDER = 'eval-replay';
/** The provider a recorded case runs on: it forwards to `target` and writes the cassette. */
export const recordingProvider = (target: string) => `eval-record-${target}`;

export interface ProbeOptions {
  mode: EvalMode;
  /** The cassette to read (replay) or write (record), absolute. */
  cassette: string;
  /** The case, for messages. */
  label: string;
  /** Record mode: the providers whose calls are recorded (the agent's, the judge's). */
  targets: string[];
}

/** The probe, and how many model calls its providers answered (the step a divergence is at). */
export interface Probe extends Plugin {
  readonly calls: number;
}

/** The prompt sections that belong to the agent and stay the same from run to run (not the clock, not memory). */
function stableSections(prompt: { system: { id: string; content: string }[] }, bootstrap: readonly string[]): { id: string; content: string }[] {
  return prompt.system.filter((s) => s.id === 'agent' || s.id === 'skills' || bootstrap.includes(s.id));
}

/** Counts the calls a provider answers (before it answers, so a call that diverges counts). */
function counted(provider: Provider, count: () => void): Provider {
  return {
    ...provider,
    get defaultModel() { return provider.defaultModel; },
    get retry() { return provider.retry; },
    chat: (request) => { count(); return provider.chat(request); },
    ...(provider.stream ? { stream: (request: ChatRequest) => { count(); return provider.stream!(request); } } : {}),
  };
}

/**
 * The plugin a case's kernel gets besides the project's own.
 *
 * @example
 * const probe = evalProbe({ mode: 'replay', cassette: '/p/.oryxos/agents/a/evals/cassettes/x.jsonl', label: 'x', targets: [] });
 */
export function evalProbe(options: ProbeOptions): Probe {
  const prints = new WeakMap<AbortSignal, PromptPrint>();
  let calls = 0;
  const promptOf = (request: ChatRequest) => (request.signal ? prints.get(request.signal) : undefined);
  const howToRecord = `run oryx eval --record --filter ${JSON.stringify(options.label)}`;
  return {
    ...pluginPackage(import.meta.url),
    name: 'eval-probe',
    get calls() { return calls; },
    setup(ctx) {
      // Last, after every plugin that adds to the prompt: the print is of what the model is sent.
      ctx.hooks.prepareStep.tapPromise({ stage: STAGE.OBSERVE }, async (prompt, run) => {
        const bootstrap = run.agent.bootstrap.map((b) => b.name);
        prints.set(run.signal, await promptPrint(stableSections(prompt, bootstrap), prompt.tools));
        return prompt;
      });
      const count = () => { calls++; };
      const settings = { cassette: options.label, file: options.cassette, howToRecord, promptOf };
      if (options.mode === 'replay') ctx.registerProvider(counted(replayProvider({ ...settings, name: REPLAY_PROVIDER }), count));
      if (options.mode === 'record') {
        for (const target of options.targets) ctx.registerProvider(counted(recordProvider({ ...settings, name: recordingProvider(target), target }, ctx), count));
      }
    },
  };
}
