import type { ToolCall } from '@oryxos/provider-spec';
import { canonicalJson } from '@oryxos/schema-kit';
import type { Stop, StopRule, StopWatch } from './rule.ts';

/** When the loop detector steps in: `repeat` identical calls in a row, an A-B ping-pong over `pingpong` calls. */
export interface LoopDetectionSettings {
  repeat: number;
  pingpong: number;
}

const signature = (call: ToolCall): string => `${call.name}\u0000${call.argsError !== undefined ? call.argsError.trim() : canonicalJson(call.args)}`;

/**
 * The default stop rule: a run going round in circles — the same call (tool and canonical
 * arguments) `repeat` times in a row, an A-B-A-B ping-pong over `pingpong` calls, or the same
 * call failing with the same error twice. The first time the model gets a result saying so and
 * what to do instead (the call does not run); the next time the run stops with stop reason
 * `loop`. Its settings come from each agent's `settings.loop_detection` (`false` turns it off).
 *
 * @example
 * ctx.registerStopRule(loopDetection((run) => run.agent.settings.loop_detection));
 */
export function loopDetection<Run>(settingsOf: (run: Run) => LoopDetectionSettings | false | undefined): StopRule<Run> {
  return { name: 'loop-detection', start: (run) => watch(settingsOf(run)) };
}

function watch(settings: LoopDetectionSettings | false | undefined): StopWatch {
  if (!settings) return {};
  const calls: string[] = [];
  const failures = new Map<string, string>();
  let warned = false;
  const verdict = (what: string): Stop | { content: string; isError: true } => {
    if (warned) return { reason: 'loop', notice: `stopped in a loop: ${what}` };
    warned = true;
    return {
      content: `Not run. Loop detected: ${what}. Do not repeat it: use the results you already have, change the arguments, `
        + 'try another tool, or answer now saying what is unfinished. Repeating it again ends the run.',
      isError: true,
    };
  };
  return {
    beforeCall(call) {
      const sig = signature(call);
      calls.push(sig);
      const { repeat, pingpong } = settings;
      const n = calls.length;
      const last = (k: number) => calls.slice(n - k);
      if (n >= repeat && last(repeat).every((c) => c === sig)) {
        return verdict(`you have called ${call.name} with the same arguments ${repeat} times in a row; its result will not change`);
      }
      // A-B-A-B over the last `pingpong` calls: A at even places of that window, B at odd ones.
      const window = last(pingpong);
      if (n >= pingpong && window[0] !== window[1] && window.every((c, i) => c === window[i % 2])) {
        return verdict(`you are alternating between ${window[window.length - 2]!.split('\u0000')[0]} and ${call.name} with the same arguments (${pingpong} calls)`);
      }
      return undefined;
    },
    afterCall(call, result) {
      if (!result.isError) return undefined;
      const sig = signature(call);
      if (failures.get(sig) !== result.content) {
        failures.set(sig, result.content);
        return undefined;
      }
      const v = verdict(`${call.name} failed twice with the same arguments and the same error`);
      return 'reason' in v ? v : v.content.replace(/^Not run\. /, '');
    },
  };
}
