import { readFile, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FileMemoryStore } from './file-store.ts';
import { fileSafeName } from './scope.ts';

/** The session a folder under the sessions folder belongs to: its `session.json`, else its plain name. */
async function sessionOf(dir: string, name: string): Promise<string | undefined> {
  try {
    const info = JSON.parse(await readFile(path.join(dir, 'session.json'), 'utf8')) as { session?: unknown };
    if (typeof info.session === 'string' && fileSafeName(info.session) === name) return info.session;
  } catch { /* no readable session.json: fall back to the name */ }
  return name.includes('~') ? undefined : name;
}

/**
 * Deletes the memory of every session the session store no longer has: a deleted session's
 * checkpoints hold its conversation text, which must not outlive it. Folders it cannot
 * attribute to a session are left alone. Returns the ids removed.
 *
 * @example
 * await sweepSessions(store, async (id) => Boolean(await kernel.service('sessions').get(id)));
 */
export async function sweepSessions(store: FileMemoryStore, sessionExists: (id: string) => Promise<boolean>): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(store.sessionsDir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const removed: string[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const session = await sessionOf(path.join(store.sessionsDir, entry.name), entry.name);
    if (session === undefined || await sessionExists(session)) continue;
    await store.forgetSession(session);
    removed.push(session);
  }
  return removed;
}

/**
 * Sweeps unless some process did within the last `intervalMs` (a marker file's mtime in the
 * sessions folder says when). Returns the ids removed.
 */
export async function sweepIfDue(store: FileMemoryStore, sessionExists: (id: string) => Promise<boolean>, intervalMs: number): Promise<string[]> {
  const marker = path.join(store.sessionsDir, '.swept');
  const last = await stat(marker).then((s) => s.mtimeMs, (error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? 0 : Infinity));
  if (Date.now() - last < intervalMs) return [];
  if (!(await stat(store.sessionsDir).then((s) => s.isDirectory(), () => false))) return [];
  await writeFile(marker, `${new Date().toISOString()}\n`);
  return sweepSessions(store, sessionExists);
}
