import type { PromptReport, RunResult } from '@oryxos/kernel';

/** What `oryx run` exits with, so scripts can tell an answer from a stop. */
export const EXIT = Object.freeze({ ok: 0, error: 1, stopped: 3, waiting: 4, interrupted: 130 });

/** 0 only for a final answer; 3 for a limit, budget or loop stop, an answer cut off or withheld; 4 while a call waits (an approval); 130 when interrupted; 1 for an error. */
export function exitCode(result: RunResult): number {
  switch (result.stopReason) {
    case 'final': return EXIT.ok;
    case 'aborted': return EXIT.interrupted;
    case 'error': return EXIT.error;
    case 'suspended': return EXIT.waiting;
    default: return EXIT.stopped;
  }
}

/** The cuts of a prompt report in a few words: `history 3 older turn(s) dropped…; tool:read_file 12000 chars`. */
export function describeCuts(cuts: PromptReport['cut']): string {
  return cuts.map((c) => `${c.section} −${c.chars} chars (${c.reason})`).join('; ');
}

/** A prompt report on one line: what went in (largest first), the estimate, and what was cut. */
export function describeReport(report: PromptReport): string {
  const injected = [...report.injected].sort((a, b) => b.chars - a.chars).map((s) => `${s.section} ${s.chars}`).join(', ');
  return `~${report.estimatedTokens} tokens (${injected} chars)${report.cut.length ? `; cut: ${describeCuts(report.cut)}` : ''}`;
}
