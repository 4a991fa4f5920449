import { randomUUID } from 'node:crypto';
import { link, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { OryxError } from '@oryxos/provider-spec';
import { processAlive } from '@oryxos/plugin-kit';

export interface FileLockOptions {
  /** How long to wait for the lock before failing with ORYX_E_MEMORY_LOCKED. */
  timeoutMs: number;
  /** A lock older than this is taken over even if its owner seems alive (it hung). */
  staleMs: number;
}

interface LockOwner { pid: number; host: string; token: string; at: number }


function parseOwner(text: string): LockOwner | undefined {
  try {
    const o = JSON.parse(text) as LockOwner;
    return typeof o.pid === 'number' && typeof o.token === 'string' ? o : undefined;
  } catch {
    return undefined;
  }
}

/**
 * True when the lock at `lockPath` was left by a dead process on this host, or is older
 * than `staleMs`; it is then moved aside and removed. Moving it aside first (an atomic
 * rename) means two processes that both judged it stale cannot both remove a fresh lock:
 * the second one finds a different token in what it moved and puts it back.
 */
async function breakStale(lockPath: string, staleMs: number): Promise<boolean> {
  let text: string;
  let mtimeMs: number;
  try {
    [text, { mtimeMs }] = await Promise.all([readFile(lockPath, 'utf8'), stat(lockPath)]);
  } catch (error) {
    // Released between our attempt and this look: simply try again.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw error;
  }
  const owner = parseOwner(text);
  const dead = owner !== undefined && owner.host === hostname() && !processAlive(owner.pid);
  // An unparsable lock is one whose owner died between creating and writing it, or one
  // being written right now: only its age tells the two apart.
  if (!dead && Date.now() - mtimeMs < staleMs) return false;
  const aside = `${lockPath}.${randomUUID().slice(0, 8)}.stale`;
  try {
    await rename(lockPath, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw error;
  }
  const moved = await readFile(aside, 'utf8').catch(() => '');
  if (moved !== text) await link(aside, lockPath).catch(() => {});
  await unlink(aside).catch(() => {});
  return true;
}

/**
 * Creates the lock file with its owner already inside: the owner is written to a private
 * file that is then hard-linked to `lockPath` (link fails when the lock exists). A process
 * killed at any point leaves either no lock or a complete one, never an empty lock that
 * only its age could break.
 */
async function createLock(lockPath: string, owner: LockOwner): Promise<boolean> {
  const mine = `${lockPath}.${owner.pid}.${owner.token.slice(0, 8)}.new`;
  const handle = await open(mine, 'wx');
  try { await handle.writeFile(JSON.stringify(owner)); } finally { await handle.close(); }
  try {
    await link(mine, lockPath);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return false;
  } finally {
    await unlink(mine).catch(() => {});
  }
}

/**
 * Removes what a process killed while taking the lock left beside it: its `.new` file (the
 * owner is dead) and a `.stale` file moved aside but never removed. Called holding the lock.
 */
async function removeDeadLockFiles(lockPath: string): Promise<void> {
  const dir = path.dirname(lockPath);
  const base = path.basename(lockPath).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const fresh = new RegExp(`^${base}\\.(\\d+)\\.[0-9a-f]{8}\\.new$`);
  const aside = new RegExp(`^${base}\\.[0-9a-f]{8}\\.stale$`);
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const pid = fresh.exec(name)?.[1];
    if ((pid !== undefined && !processAlive(Number(pid))) || aside.test(name)) await unlink(path.join(dir, name)).catch(() => {});
  }
}

/**
 * Runs `fn` while holding an exclusive lock file, across processes: the file is created with
 * O_EXCL and records pid, host and a token; a lock left by a dead process (or older than
 * `staleMs`) is recovered. Waits with jittered backoff up to `timeoutMs`.
 *
 * @example
 * await withFileLock('/w/memory/MEMORY.md.lock', { timeoutMs: 5000, staleMs: 30000 }, async () => {
 *   // read-modify-write MEMORY.md
 * });
 */
export async function withFileLock<T>(lockPath: string, options: FileLockOptions, fn: () => Promise<T>): Promise<T> {
  const owner: LockOwner = { pid: process.pid, host: hostname(), token: randomUUID(), at: Date.now() };
  const deadline = Date.now() + options.timeoutMs;
  for (let attempt = 0; ; attempt++) {
    if (await createLock(lockPath, owner)) {
      await removeDeadLockFiles(lockPath);
      break;
    }
    if (await breakStale(lockPath, options.staleMs)) continue;
    if (Date.now() >= deadline) {
      throw new OryxError('ORYX_E_MEMORY_LOCKED', `Timed out after ${options.timeoutMs} ms waiting for ${lockPath}`, {
        hint: 'Another process is writing MEMORY.md; retry. If no oryx process is running, delete the lock file.',
        retryable: true,
        data: { lockPath },
      });
    }
    await sleep(Math.min(50, 2 + attempt * 2) * (0.5 + Math.random()));
  }
  try {
    return await fn();
  } finally {
    const current = parseOwner(await readFile(lockPath, 'utf8').catch(() => ''));
    if (current?.token === owner.token) await unlink(lockPath).catch(() => {});
  }
}

/**
 * Serializes async work per key inside one process, so concurrent saves queue in order
 * instead of polling the lock file against each other.
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const mine = previous.catch(() => {}).then(fn);
    this.tails.set(key, mine);
    try {
      return await mine;
    } finally {
      if (this.tails.get(key) === mine) this.tails.delete(key);
    }
  }
}
