import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Paint } from './progress.ts';

/** A tool call waiting for the person at the terminal. */
export interface ApprovalQuestion {
  tool: string;
  args: Record<string, unknown>;
  /** Why it asks, one per sandbox action or rule. */
  reasons: string[];
}

/** What the person answered: this call, not this call, or every call that asks for the rest of the run. */
export type ApprovalAnswer = 'approve' | 'deny' | 'always';

/** Lines of a diff shown at most; the rest is counted. */
const MAX_DIFF_LINES = 200;

/**
 * What a write would change, as a unified diff (`jsdiff`, loaded here): for `write_file` the
 * file as it is against the new content, for `edit_file` the file with the one replacement
 * made. Undefined for other tools, or an edit whose text does not occur exactly once (the
 * arguments are shown instead).
 *
 * @example
 * await proposedDiff({ tool: 'write_file', args: { path: 'a.txt', content: 'new\n' }, reasons: [] }, '/proj')
 */
export async function proposedDiff(question: ApprovalQuestion, root: string): Promise<string | undefined> {
  const { tool, args } = question;
  if ((tool !== 'write_file' && tool !== 'edit_file') || typeof args.path !== 'string') return undefined;
  const file = args.path;
  const before = await readFile(path.resolve(root, file), 'utf8').catch(() => undefined);
  let after: string;
  if (tool === 'write_file') {
    if (typeof args.content !== 'string') return undefined;
    after = args.content;
  } else {
    if (before === undefined || typeof args.old !== 'string' || typeof args.new !== 'string') return undefined;
    const at = before.indexOf(args.old);
    if (at < 0 || before.indexOf(args.old, at + 1) >= 0) return undefined;
    after = before.slice(0, at) + args.new + before.slice(at + args.old.length);
  }
  const { createTwoFilesPatch } = await import('diff');
  const patch = createTwoFilesPatch(before === undefined ? '/dev/null' : `a/${file}`, `b/${file}`, before ?? '', after, undefined, undefined, { context: 3 });
  // jsdiff puts a "====" rule above the file names; a unified diff starts at "---".
  const lines = patch.split('\n').filter((l, i) => !(i === 0 && l.startsWith('===')));
  if (lines.at(-1) === '') lines.pop();
  if (lines.length <= MAX_DIFF_LINES) return lines.join('\n');
  return [...lines.slice(0, MAX_DIFF_LINES), `… ${lines.length - MAX_DIFF_LINES} more lines`].join('\n');
}

/**
 * The question as the terminal shows it: the tool, why it asks, then the diff of a write or
 * the arguments. `clean` escapes what the model wrote (control characters, secrets).
 */
export async function describeQuestion(question: ApprovalQuestion, root: string, paint: Paint, clean: (text: string) => string): Promise<string> {
  const out = [paint.yellow(`? ${question.tool} needs your approval`)];
  for (const reason of question.reasons) out.push(`  ${clean(reason)}`);
  const diff = await proposedDiff(question, root);
  if (diff !== undefined) {
    for (const line of clean(diff).split('\n')) {
      out.push(`  ${line.startsWith('+') && !line.startsWith('+++') ? paint.green(line) : line.startsWith('-') && !line.startsWith('---') ? paint.red(line) : line}`);
    }
  } else {
    out.push(`  ${clean(JSON.stringify(question.args, null, 2)).split('\n').join('\n  ')}`);
  }
  return out.join('\n');
}

/** `y`, `yes`, `n`, `no`, `a`, `always`, any case; an empty answer is no. Undefined: not an answer. */
export function parseAnswer(text: string | undefined): ApprovalAnswer | undefined {
  const t = (text ?? '').trim().toLowerCase();
  if (t === '' || t === 'n' || t === 'no') return 'deny';
  if (t === 'y' || t === 'yes') return 'approve';
  if (t === 'a' || t === 'always') return 'always';
  return undefined;
}

export const APPROVAL_QUESTION = 'Allow? [y]es / [n]o / [a]lways for this run: ';

/**
 * Asks until the answer is one (three tries, then no). `ask` shows the question and resolves
 * with the line typed, or undefined when input ended (Ctrl-D): that is no.
 */
export async function askApproval(ask: (question: string) => Promise<string | undefined>): Promise<ApprovalAnswer> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const line = await ask(attempt ? `Please answer y, n or a. ${APPROVAL_QUESTION}` : APPROVAL_QUESTION);
    if (line === undefined) return 'deny';
    const answer = parseAnswer(line);
    if (answer) return answer;
  }
  return 'deny';
}
