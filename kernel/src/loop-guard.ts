import type { LoopDetectionSettings, ToolCall, ToolResult } from './types.ts';

/** What the guard says about a call: let it run, answer it with a warning instead, or stop the run. */
export type GuardVerdict =
  | { action: 'run' }
  | { action: 'warn'; message: string }
  | { action: 'stop'; notice: string };

export const DEFAULT_LOOP_DETECTION: LoopDetectionSettings = Object.freeze({ repeat: 3, pingpong: 4 });

/** JSON with object keys sorted: two calls with the same arguments in another key order are equal. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const signature = (call: ToolCall): string => `${call.name}\u0000${call.argsError !== undefined ? call.argsError.trim() : canonicalJson(call.args)}`;

const AGAIN = 'Repeating it again ends the run.';

/**
 * Spots a run going round in circles: the same call (tool and canonical arguments) `repeat`
 * times in a row, an A-B-A-B ping-pong over `pingpong` calls, or the same call failing with the
 * same error twice. The first time, the model gets a tool result saying so and what to do
 * instead; the next time, the run stops with stopReason `loop`.
 */
export class LoopGuard {
  private readonly calls: string[] = [];
  private readonly failures = new Map<string, string>();
  private warned = false;

  constructor(private readonly settings: LoopDetectionSettings | false) {}

  /** Before a call runs (in call order). */
  before(call: ToolCall): GuardVerdict {
    if (!this.settings) return { action: 'run' };
    const sig = signature(call);
    this.calls.push(sig);
    const { repeat, pingpong } = this.settings;
    const last = this.calls.slice(-Math.max(repeat, pingpong));
    const tail = (n: number) => last.slice(-n);
    if (this.calls.length >= repeat && tail(repeat).every((s) => s === sig)) {
      return this.verdict(`you have called ${call.name} with the same arguments ${repeat} times in a row; its result will not change`);
    }
    const pp = tail(pingpong);
    if (this.calls.length >= pingpong && pp[0] !== pp[1] && pp.every((s, i) => s === pp[i % 2])) {
      const other = pp.at(-2)!.split('\u0000')[0];
      return this.verdict(`you are alternating between ${other} and ${call.name} with the same arguments (${pingpong} calls)`);
    }
    return { action: 'run' };
  }

  /** After a call ran (in call order): the same call failing with the same error twice. */
  after(call: ToolCall, result: ToolResult): GuardVerdict {
    if (!this.settings || !result.isError) return { action: 'run' };
    const sig = signature(call);
    if (this.failures.get(sig) !== result.content) {
      this.failures.set(sig, result.content);
      return { action: 'run' };
    }
    return this.verdict(`${call.name} failed twice with the same arguments and the same error`);
  }

  private verdict(what: string): GuardVerdict {
    if (this.warned) return { action: 'stop', notice: `stopped in a loop: ${what}` };
    this.warned = true;
    return {
      action: 'warn',
      message: `Loop detected: ${what}. Do not repeat it: use the results you already have, change the arguments, `
        + `try another tool, or answer now saying what is unfinished. ${AGAIN}`,
    };
  }
}
