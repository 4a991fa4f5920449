import { createHash } from 'node:crypto';
import type { Message } from '@oryxos/provider-spec';
import type { TrimInfo } from '@oryxos/kernel';
import type { CheckpointItem } from './file-store.ts';

/** Longest ask and answer kept in a checkpoint, in characters. */
export const CHECKPOINT_ASK_CHARS = 240;
export const CHECKPOINT_ANSWER_CHARS = 480;

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1).trimEnd()}…`;
}

/**
 * The key that marks a turn in the Archive: the session id and the stored position of the
 * turn's first message, e.g. `(session 3f2a… #12)`. Without a position (a store that does
 * not report one) a hash of the turn stands in.
 */
export function checkpointKey(sessionId: string, turn: { firstSeq?: number; messages: Message[] }): string {
  if (turn.firstSeq !== undefined) return `(session ${sessionId} #${turn.firstSeq})`;
  const hash = createHash('sha256').update(JSON.stringify(turn.messages)).digest('hex').slice(0, 10);
  return `(session ${sessionId} ~${hash})`;
}

/**
 * Turns leaving the prompt as Archive entries: per turn, what the user asked and the final
 * answer, never the tool calls in between; deterministic (no model call), one line each, with
 * the turn's key so it is written once. A turn with neither ask nor answer yields nothing.
 *
 * @example
 * checkpointItems({ run, reason: 'window', turns: [{ firstSeq: 1, messages }] });
 * // [{ key: '(session s1 #1)', text: 'Earlier conversation: the user asked "…"; the answer was "…" (session s1 #1)' }]
 */
export function checkpointItems(info: Pick<TrimInfo, 'turns'> & { run: { sessionId: string } }): CheckpointItem[] {
  const items: CheckpointItem[] = [];
  for (const turn of info.turns) {
    const asks = turn.messages.filter((m) => m.role === 'user').map((m) => m.content).filter((c) => c.trim());
    const final = [...turn.messages].reverse()
      .find((m) => m.role === 'assistant' && !m.toolCalls?.length && m.content.trim());
    if (!asks.length && !final) continue;
    const key = checkpointKey(info.run.sessionId, turn);
    const ask = asks.length ? `the user asked "${clip(asks.join(' / '), CHECKPOINT_ASK_CHARS)}"` : 'no ask was recorded';
    const answer = final ? `the answer was "${clip(final.content, CHECKPOINT_ANSWER_CHARS)}"` : 'there was no final answer';
    items.push({ key, text: `Earlier conversation: ${ask}; ${answer} ${key}` });
  }
  return items;
}

/** The key a checkpoint entry ends with; group 1 is the session id. */
const ENTRY_KEY = /\(session (\S+) (?:#\d+|~[0-9a-f]{10})\)$/;

/** The key at the end of an entry's text (`(session s1 #12)`), if it has one. */
export function checkpointKeyOf(text: string): string | undefined {
  return ENTRY_KEY.exec(text)?.[0];
}

/**
 * The session a checkpoint entry belongs to, or undefined for any other entry. Before
 * checkpoints had their own place, they were written into the agent's MEMORY.md; this is how
 * the migration and the prompt recognise them there.
 *
 * @example
 * checkpointSession('Earlier conversation: the user asked "hi"; the answer was "hello" (session s1 #1)'); // 's1'
 */
export function checkpointSession(text: string): string | undefined {
  if (!text.startsWith('Earlier conversation: ')) return undefined;
  return ENTRY_KEY.exec(text)?.[1];
}
