import { createInterface, type Interface } from 'node:readline/promises';
import { definePlugin, type Answer, type Plugin, type Question } from '@oryxos/kernel';
import { askApproval, describeQuestion } from './approval-prompt.ts';
import type { Paint } from './progress.ts';

/** What `oryx run` and `oryx chat` do with a tool call that needs approval (`--approval`). */
export type ApprovalMode = 'ask' | 'deny' | 'wait';

export interface ApprovalTapOptions {
  mode: ApprovalMode;
  /** Whether there is a person at a terminal to ask (stdin and stderr are terminals). */
  interactive: boolean;
  paint: Paint;
  clean(text: string): string;
  /** Raw text on stderr. */
  write(text: string): void;
  /** Stops the spinner before the question is shown. */
  quiet?(): void;
  /**
   * The readline interface to ask with (chat's, made after the kernel starts: one made before
   * would read piped lines while nobody listens); without one, one is opened on stdin per question.
   */
  rl?: () => Interface | undefined;
  /**
   * Ctrl-C at the question: aborts the run (`oryx run` exits 130, `oryx chat` goes back to its
   * prompt). The call is not run, and its result says the run was interrupted.
   */
  interrupt?(): void;
  /**
   * Esc at the question does what Ctrl-C does (`oryx chat`, as Esc interrupts the model there):
   * the call is not run and the run stops.
   */
  escape?: boolean;
}

/**
 * The terminal as a door: `oryx run` and `oryx chat` start their runs through it, so what a run
 * needs from a person comes here. A tool call that needs approval is shown (a unified diff for a
 * write) and asked `[y]es / [n]o / [a]lways for this run`; off a terminal (or with `--approval
 * deny`) it is denied, saying so on stderr; with `--approval wait` nothing is answered, so the
 * run suspends and the approval is stored for `oryx approvals` and the web API.
 */
export function cliDoor(o: ApprovalTapOptions): Plugin {
  return definePlugin({
    name: 'cli-door',
    setup(ctx) {
      ctx.registerDoor({
        name: 'cli',
        ask: async (question: Question): Promise<Answer | undefined> => (question.kind === 'approval' ? askToApprove(question, ctx.config.root, o) : undefined),
      });
    },
  });
}

async function askToApprove(q: Extract<Question, { kind: 'approval' }>, root: string, o: ApprovalTapOptions): Promise<Answer | undefined> {
  if (o.mode === 'wait') return undefined;
  const what = o.clean(`${q.call.name}: ${q.asks.map((a) => a.reason).join('; ')}`);
  if (o.mode === 'deny' || !o.interactive) {
    const why = o.mode === 'deny' ? '--approval deny' : 'not on a terminal, so nobody can be asked (the default off a terminal); --approval wait stores it for `oryx approvals` instead';
    o.quiet?.();
    o.write(`${o.paint.yellow('approval needed')} ${what}\n  → denied: ${why}\n`);
    return { decision: 'deny', by: 'cli', reason: o.mode === 'deny' ? 'denied by --approval deny' : 'no terminal to ask a person on' };
  }
  o.quiet?.();
  o.write(`${await describeQuestion({ tool: q.call.name, args: q.call.args, reasons: q.asks.map((a) => a.reason) }, root, o.paint, o.clean)}\n`);
  const shared = o.rl?.();
  const rl = shared ?? createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  let closed = false;
  let interrupted = false;
  // On a terminal readline takes Ctrl-C as a key, not a signal: without this it waits for Enter.
  const stop = new AbortController();
  const onClose = () => { closed = true; };
  let key = 'Ctrl-C';
  const onInterrupt = () => { interrupted = true; stop.abort(); o.interrupt?.(); };
  // readline decodes the keys of the terminal it reads (raw mode) into keypress events on its input.
  const onKey = (_: string, k?: { name?: string }) => { if (k?.name === 'escape' && !interrupted) { key = 'Esc'; onInterrupt(); } };
  rl.once('close', onClose);
  rl.on('SIGINT', onInterrupt);
  if (o.escape) process.stdin.on('keypress', onKey);
  try {
    const answer = await askApproval(async (question) => {
      if (closed || interrupted) return undefined;
      const ended = new Promise<undefined>((resolve) => {
        rl.once('close', () => resolve(undefined));
        stop.signal.addEventListener('abort', () => resolve(undefined), { once: true });
      });
      return Promise.race([rl.question(question, { signal: stop.signal }).catch(() => undefined), ended]);
    });
    if (interrupted) {
      o.write(`  → interrupted (${key}): the call is not run and the run stops\n`);
      return { decision: 'deny', by: 'cli', reason: `the run was interrupted (${key}) at the approval question` };
    }
    o.write(`  → ${answer === 'deny' ? 'denied' : answer === 'always' ? `approved for every ${q.call.name} call of this run` : 'approved'}\n`);
    return answer === 'deny' ? { decision: 'deny', by: 'cli', reason: 'the person at the terminal said no' } : { decision: answer, by: 'cli' };
  } finally {
    rl.off('close', onClose);
    rl.off('SIGINT', onInterrupt);
    process.stdin.off('keypress', onKey);
    if (!shared) rl.close();
  }
}
