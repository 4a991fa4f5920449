import type { LoopDetectionSettings, ToolCall, ToolResult } from './types.ts';

/** What the guard says about a call: let it run, answer it with a warning instead, or stop the run. */
export type GuardVerdict =
  | { action: 'run' }
  | { action: 'warn'; message: string }
  | { action: 'stop'; notice: string };

export const DEFAULT_LOOP_DETECTION: LoopDetectionSettings = Object.freeze({ repeat: 3, pingpong: 4 });

/** JSON with object keys sorted: two calls with the same arguments in another key order are equal. */
export function canonicalJson(value: unknown): string {
  // Arguments as models write them are plain JSON, often with their keys in order already:
  // then the canonical form is JSON.stringify's.
  return inOrder(value) ? JSON.stringify(value) : sortedJson(value);
}

/** True for plain JSON data (no undefined, functions, symbols, toJSON) whose every object has its keys sorted. */
function inOrder(value: unknown): boolean {
  switch (typeof value) {
    case 'string': case 'number': case 'boolean': return true;
    case 'object': {
      if (value === null) return true;
      if (Array.isArray(value)) {
        for (const item of value) if (!inOrder(item)) return false;
        return true;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return false;
      let previous: string | undefined;
      for (const key in value) {
        if (previous !== undefined && previous > key) return false;
        previous = key;
        if (!inOrder((value as Record<string, unknown>)[key])) return false;
      }
      return true;
    }
    default: return false;
  }
}

function sortedJson(value: unknown): string {
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i ? ',' : '') + sortedJson(value[i]);
    return `${out}]`;
  }
  if (value && typeof value === 'object') {
    const keys = Object.keys(value);
    if (!sorted(keys)) keys.sort();
    let out = '{';
    let n = 0;
    for (const k of keys) {
      const v = (value as Record<string, unknown>)[k];
      if (v !== undefined) out += `${n++ ? ',' : ''}${JSON.stringify(k)}:${sortedJson(v)}`;
    }
    return `${out}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** True when the keys are in code-unit order already (the model wrote them so, or there is one). */
function sorted(keys: string[]): boolean {
  for (let i = 1; i < keys.length; i++) if (keys[i - 1]! > keys[i]!) return false;
  return true;
}

const signature = (call: ToolCall): string => `${call.name}\u0000${call.argsError !== undefined ? call.argsError.trim() : canonicalJson(call.args)}`;

const AGAIN = 'Repeating it again ends the run.';
const RUN: GuardVerdict = Object.freeze({ action: 'run' });

/** True when `list[i]` is `expected(i)` for every i from `from` up to `to`. */
function same(list: string[], from: number, to: number, expected: (i: number) => string): boolean {
  for (let i = from; i < to; i++) if (list[i] !== expected(i)) return false;
  return true;
}

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
    if (!this.settings) return RUN;
    const sig = signature(call);
    const calls = this.calls;
    calls.push(sig);
    const { repeat, pingpong } = this.settings;
    // Only the last max(repeat, pingpong) calls matter.
    if (calls.length > 2 * Math.max(repeat, pingpong)) calls.splice(0, calls.length - Math.max(repeat, pingpong));
    const n = calls.length;
    if (n >= repeat && same(calls, n - repeat, n, () => sig)) {
      return this.verdict(`you have called ${call.name} with the same arguments ${repeat} times in a row; its result will not change`);
    }
    // A-B-A-B over the last `pingpong` calls: A at even places from the start of that window, B at odd ones.
    const start = n - pingpong;
    if (n >= pingpong && calls[start] !== calls[start + 1] && same(calls, start, n, (i) => calls[start + ((i - start) % 2)]!)) {
      const other = calls[n - 2]!.split('\u0000')[0];
      return this.verdict(`you are alternating between ${other} and ${call.name} with the same arguments (${pingpong} calls)`);
    }
    return RUN;
  }

  /** After a call ran (in call order): the same call failing with the same error twice. */
  after(call: ToolCall, result: ToolResult): GuardVerdict {
    if (!this.settings || !result.isError) return RUN;
    const sig = signature(call);
    if (this.failures.get(sig) !== result.content) {
      this.failures.set(sig, result.content);
      return RUN;
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
