import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { checkpointKeyOf, checkpointSession } from './checkpoint.ts';
import { isoDate, type FileMemoryStore } from './file-store.ts';

/** Where checkpoints of sessions that no longer exist are kept, beside the agent's MEMORY.md. */
export const MIGRATED_FILE = 'migrated-checkpoints.md';

/** What {@link migrateCheckpoints} moved. */
export interface MigrationOutcome {
  /** Entries taken out of the agent's MEMORY.md. */
  moved: number;
  /** Sessions (still existing) whose own memory received their checkpoints. */
  sessions: number;
  /** Entries of sessions that no longer exist, kept in {@link MIGRATED_FILE}. */
  kept: number;
  keptPath?: string;
}

const header = (day: string) => `# Checkpoints moved out of MEMORY.md

Before OryxOS kept each conversation's checkpoints with its session, they were written into the
agent's MEMORY.md, where every conversation saw them. These belong to sessions that no longer
exist; they were moved here on ${day} so that nothing was lost. Nothing reads this file into a
prompt or a search: read it, keep it or delete it.

## Archive
`;

/**
 * The one-time migration of checkpoints out of an agent's MEMORY.md: each conversation's
 * entries go to that session's own memory when the session still exists, else to
 * `migrated-checkpoints.md` beside MEMORY.md; then they are removed from MEMORY.md. Entries are
 * written before they are removed, and keyed, so a crash or a second run repeats nothing and
 * loses nothing. Returns zeros when there is nothing to move.
 *
 * @example
 * await migrateCheckpoints(store, 'assistant', async (id) => Boolean(await sessions.get(id)));
 */
export async function migrateCheckpoints(
  store: FileMemoryStore, agent: string, sessionExists: (id: string) => Promise<boolean>,
): Promise<MigrationOutcome> {
  const file = await store.load(agent);
  const bySession = new Map<string, { key: string; date: string; text: string }[]>();
  for (const e of file.parsed.archive) {
    const session = checkpointSession(e.text);
    if (session === undefined) continue;
    const list = bySession.get(session) ?? [];
    bySession.set(session, list);
    list.push({ key: checkpointKeyOf(e.text)!, date: e.date, text: e.text });
  }
  if (!bySession.size) return { moved: 0, sessions: 0, kept: 0 };

  const keptPath = path.join(path.dirname(file.path), MIGRATED_FILE);
  let sessions = 0;
  let kept = 0;
  for (const [session, items] of bySession) {
    const live = await sessionExists(session).catch(() => false);
    let target: string | undefined;
    if (live) {
      try { target = path.join(store.sessionDir(session), 'MEMORY.md'); } catch { /* an id no folder can hold: kept below */ }
    }
    if (target) {
      await store.appendKeyed(target, items, { session });
      sessions++;
    } else {
      await writeFile(keptPath, header(isoDate()), { flag: 'wx' }).catch(() => {});
      await store.appendKeyed(keptPath, items);
      kept += items.length;
    }
  }
  const written = new Set([...bySession.values()].flat().map((i) => `${i.date}\n${i.text}`));
  const moved = await store.removeFromAgent(agent, (e) => written.has(`${e.date}\n${e.text}`));
  return { moved, sessions, kept, ...(kept ? { keptPath } : {}) };
}
