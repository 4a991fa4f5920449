// The live status line of a run going on: what it is doing, for how long, and the tokens it
// has used. Built from the run's stream events alone; pure data, no DOM (tested in Node).
import type { RunStreamEvent, RunUsage } from './transcript.ts';

/** `thinking`: a model call (its text streaming, or not yet); `tool`: tool calls running; `approval`: a call waits for a person. */
export type RunPhase = 'thinking' | 'tool' | 'approval';

export interface RunStatus {
  phase: RunPhase;
  /** The tool calls running now, by call id, in the order they started. */
  tools: { id: string; name: string }[];
  /** The tool a call waits for approval of (phase `approval`). */
  waitingFor?: string;
  /** When the run started (ms since the epoch). */
  startedAt: number;
  usage?: RunUsage;
}

/** A run just sent: the model is being asked. */
export function startStatus(now: number): RunStatus {
  return { phase: 'thinking', tools: [], startedAt: now };
}

/** The status after one event of the run. */
export function nextStatus(s: RunStatus, e: RunStreamEvent): RunStatus {
  switch (e.event) {
    case 'token':
      return s.phase === 'thinking' ? s : { ...s, phase: 'thinking', tools: [] };
    case 'tool_call':
      return { ...s, phase: 'tool', tools: [...s.tools, { id: e.data.id, name: e.data.name }] };
    case 'tool_result': {
      const tools = s.tools.filter((t) => t.id !== e.data.id);
      // The last call of the step done: the model is asked again with the results.
      return { ...s, tools, phase: tools.length ? 'tool' : 'thinking' };
    }
    case 'approval_required':
      return { ...s, phase: 'approval', waitingFor: e.data.tool, tools: s.tools.filter((t) => t.name !== e.data.tool) };
    case 'stopping':
      return { ...s, phase: 'thinking', tools: [] };
    case 'usage':
      return { ...s, usage: e.data };
    default:
      return s;
  }
}

/** Elapsed time as people say it: `0 s`, `42 s`, `3 min 05 s`. */
export function elapsedText(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}

/** What the run does now, in a few words. */
export function phaseText(s: RunStatus): string {
  if (s.phase === 'approval') return `Waiting for approval of ${s.waitingFor ?? 'a tool call'}`;
  if (s.phase === 'tool' && s.tools.length) {
    const names = [...new Set(s.tools.map((t) => t.name))];
    return `Calling tool ${names.join(', ')}`;
  }
  return 'Thinking';
}

/** The tokens so far: `1,200 in (1,024 cached) · 40 out tokens`; none before the first model call returns. */
export function tokensText(usage: RunUsage | undefined): string | undefined {
  if (!usage) return undefined;
  const n = (v: number) => v.toLocaleString('en-US');
  const cached = usage.cacheReadTokens ? ` (${n(usage.cacheReadTokens)} cached)` : '';
  return `${n(usage.inputTokens)} in${cached} · ${n(usage.outputTokens)} out tokens`;
}

/** The whole line: `Calling tool read_file · 12 s · 540 in · 96 out tokens`. */
export function statusText(s: RunStatus, now: number): string {
  return [phaseText(s), elapsedText(now - s.startedAt), tokensText(s.usage)].filter(Boolean).join(' · ');
}
