import type { Database, SessionStore } from '@oryxos/contracts';
import type { Message } from '@oryxos/provider-spec';
import type { LlmCallRow } from './queries.ts';
import type { Redactor } from './redact.ts';

/** What a model call was sent and answered, as `oryx audit llm --show ID` prints it. */
export interface CallMessages {
  /** The conversation the call was made on (the system prompt is not stored: its sections are in the prompt report). */
  request: Message[];
  /** What the model answered; undefined for a failed call. */
  response?: Message;
}

/**
 * The messages of one model call, read back from its session with the audit's redaction
 * applied. Prompts and answers are not copied into `llm_calls`: every answer is committed to the
 * session as it comes, so the n-th answered call of a session is its n-th assistant message,
 * and what came before it is what the call was sent (before the history window cut it, which
 * the prompt report records). A failed call gets the conversation up to where it was made.
 * Undefined when the row has no session or the session is gone.
 *
 * @example
 * const m = await callMessages(row, db, kernel.service('sessions'), redact);
 */
export async function callMessages(row: LlmCallRow, db: Pick<Database, 'query'>, sessions: Pick<SessionStore, 'messages'>, redact: Redactor): Promise<CallMessages | undefined> {
  if (!row.session_id) return undefined;
  const [counted] = await db.query<{ n: number | string }>(
    `SELECT COUNT(*) AS n FROM llm_calls WHERE session_id = ? AND status = 'ok' AND id ${row.status === 'ok' ? '<=' : '<'} ?`, [row.session_id, row.id]);
  const answered = Number(counted?.n ?? 0);
  const stored = (await sessions.messages(row.session_id).catch(() => [])).map((m) => m.message);
  if (!stored.length) return undefined;
  let seen = 0;
  let at = stored.length;
  for (let i = 0; i < stored.length; i++) {
    if (stored[i]!.role !== 'assistant') continue;
    seen++;
    if (row.status === 'ok' && seen === answered) { at = i; break; }
    if (row.status !== 'ok' && seen === answered + 1) { at = i; break; }
  }
  const clean = (m: Message) => redacted(m, redact);
  const request = await Promise.all(stored.slice(0, at).map(clean));
  const response = row.status === 'ok' && stored[at] ? await clean(stored[at]!) : undefined;
  return { request, ...(response ? { response } : {}) };
}

async function redacted(m: Message, redact: Redactor): Promise<Message> {
  const content = await redact(m.content);
  if (m.role === 'assistant' && m.toolCalls?.length) {
    const toolCalls = await Promise.all(m.toolCalls.map(async (c) => {
      const text = await redact(JSON.stringify(c.args));
      try { return { ...c, args: JSON.parse(text) as Record<string, unknown> }; } catch { return { ...c, args: { redacted: text } }; }
    }));
    return { ...m, content, toolCalls };
  }
  return { ...m, content };
}
