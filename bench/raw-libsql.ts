// A database file with the sqlite and audit plugins' real tables, opened raw (libsql, no plugin
// code) with the pragmas the sqlite plugin sets: for the benchmarks that model a loop step's
// writes statement by statement (sqlite-floor.ts, step-shapes.ts).
import Libsql from 'libsql';
import { enableWal, migrate, openDatabase } from '@oryxos/plugin-sqlite';
import { MIGRATIONS as AUDIT_MIGRATIONS, OWNER as AUDIT_OWNER } from '@oryxos/plugin-audit';

export type RawDb = InstanceType<typeof Libsql>;

/** `file` migrated as the plugins do, then opened raw; WAL checkpoints only after `autocheckpointPages`. */
export async function rawDatabase(file: string, autocheckpointPages: number): Promise<RawDb> {
  const setup = await openDatabase({ kind: 'file', path: file }, { driver: 'libsql', busyTimeoutMs: 5000 });
  await enableWal(setup);
  await migrate(setup);
  await migrate(setup, AUDIT_MIGRATIONS, AUDIT_OWNER);
  await setup.close();
  const db = new Libsql(file);
  db.exec(`PRAGMA busy_timeout = 5000; PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = ${autocheckpointPages}; PRAGMA foreign_keys = ON`);
  return db;
}
