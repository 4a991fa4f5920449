import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RUN_MIGRATIONS, RUNS_OWNER, SqlRunRecordStore, SqlSessionStore, type SqlSessionStoreOptions } from '@oryxos/sql-store';
import { enableWal, migrate, openDatabase, type OpenDatabase } from '../src/index.ts';

export const DRIVERS = ['libsql', 'client'] as const;
export type Driver = (typeof DRIVERS)[number];

/** A temp folder, removed by the returned cleanup. */
export async function tempDir(prefix = 'oryx-sqlite-'): Promise<{ dir: string; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** A migrated database file (the store's tables and the run records') and the stores on it. */
export async function openStore(file: string, driver: Driver, options: SqlSessionStoreOptions = {}) {
  const db: OpenDatabase = await openDatabase({ kind: 'file', path: file }, { driver, busyTimeoutMs: 5000 });
  await enableWal(db);
  await migrate(db);
  await migrate(db, RUN_MIGRATIONS, RUNS_OWNER);
  const store = new SqlSessionStore(() => db, options);
  const runs = new SqlRunRecordStore(() => db);
  return {
    db, store, runs,
    async close() { await store.close(); await db.close(); },
  };
}

/** Runs `fn` and returns what it threw (fails when it did not throw). */
export async function rejection(fn: () => Promise<unknown>): Promise<any> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}
