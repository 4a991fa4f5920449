import { createInterface, type Interface } from 'node:readline/promises';
import type { ApprovalAnswer, ApprovalInfo, Kernel } from '@oryxos/kernel';
import { askApproval, describeQuestion } from './approval-prompt.ts';
import type { Paint } from './progress.ts';

/** What `oryx run` and `oryx chat` do with a tool call that needs approval (`--approval`). */
export type ApprovalMode = 'ask' | 'deny' | 'wait';

export interface ApprovalTapOptions {
  mode: ApprovalMode;
  /** Whether there is a person at a terminal to ask (stdin and stderr are terminals). */
  interactive: boolean;
  root: string;
  paint: Paint;
  clean(text: string): string;
  /** Raw text on stderr. */
  write(text: string): void;
  /** Stops the spinner before the question is shown. */
  quiet?(): void;
  /** The readline interface to ask with (chat has one); else one is opened on stdin per question. */
  rl?: Interface;
}

/**
 * Decides in this process the tool calls that need approval, through the kernel's
 * `onApproval` hook: on a terminal it shows the call (a unified diff for a write) and asks
 * `[y]es / [n]o / [a]lways for this run`; off a terminal (or with `--approval deny`) it denies,
 * saying so on stderr; with `--approval wait` it lets the run pause, so the approval is
 * stored for `oryx approvals` and the web API.
 */
export function tapApprovals(kernel: Kernel, o: ApprovalTapOptions): void {
  kernel.hooks.onApproval.tapPromise({ name: 'cli' }, async (info: ApprovalInfo): Promise<ApprovalAnswer | undefined> => {
    if (o.mode === 'wait') return undefined;
    const what = o.clean(`${info.call.name}: ${info.asks.map((a) => a.reason).join('; ')}`);
    if (o.mode === 'deny' || !o.interactive) {
      const why = o.mode === 'deny' ? '--approval deny' : 'not on a terminal, so nobody can be asked (the default off a terminal); --approval wait stores it for `oryx approvals` instead';
      o.quiet?.();
      o.write(`${o.paint.yellow('approval needed')} ${what}\n  → denied: ${why}\n`);
      return { decision: 'deny', by: 'cli', reason: o.mode === 'deny' ? 'denied by --approval deny' : 'no terminal to ask a person on' };
    }
    o.quiet?.();
    o.write(`${await describeQuestion({ tool: info.call.name, args: info.call.args, reasons: info.asks.map((a) => a.reason) }, o.root, o.paint, o.clean)}\n`);
    const rl = o.rl ?? createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    let closed = false;
    const onClose = () => { closed = true; };
    rl.once('close', onClose);
    try {
      const answer = await askApproval(async (question) => {
        if (closed) return undefined;
        const ended = new Promise<undefined>((resolve) => rl.once('close', () => resolve(undefined)));
        return Promise.race([rl.question(question), ended]);
      });
      o.write(`  → ${answer === 'deny' ? 'denied' : answer === 'always' ? `approved for every ${info.call.name} call of this run` : 'approved'}\n`);
      return answer === 'deny' ? { decision: 'deny', by: 'cli', reason: 'the person at the terminal said no' } : { decision: answer, by: 'cli' };
    } finally {
      rl.off('close', onClose);
      if (!o.rl) rl.close();
    }
  });
}
