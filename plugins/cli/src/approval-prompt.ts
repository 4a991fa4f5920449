import { proposedDiff } from '@oryxos/diff-kit';
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

/**
 * The question as the terminal shows it: the tool, why it asks, then the diff of a write or
 * the arguments. `clean` escapes what the model wrote (control characters, secrets).
 */
export async function describeQuestion(question: ApprovalQuestion, root: string, paint: Paint, clean: (text: string) => string): Promise<string> {
  const out = [paint.yellow(`? ${question.tool} needs your approval`)];
  for (const reason of question.reasons) out.push(`  ${clean(reason)}`);
  // The person at the terminal may read any file: the diff is of the path as the call names it.
  const diff = await proposedDiff({ tool: question.tool, args: question.args }, root);
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
