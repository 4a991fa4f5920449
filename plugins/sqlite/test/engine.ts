// The sqlite engine of the store contract (kits/sql-store/test/store-contract.ts), on one libsql
// driver: a temp project with its database file, and the statements that differ.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StoreEngine } from '../../../kits/sql-store/test/store-contract.ts';
import sqlite from '../src/index.ts';
import { openStore, tempDir } from './helpers.ts';

const WORKER_ENGINE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'store-engine.ts');

/** The environment of a worker process (kits/sql-store/test/fixtures/worker.mts) on this engine. */
export const SQLITE_WORKER_ENV: Record<string, string> = { ORYX_TEST_STORE_MODULE: WORKER_ENGINE };

export function sqliteEngine(driver: 'libsql' | 'client'): StoreEngine {
  return {
    name: `sqlite/${driver}`,
    async project() {
      const { dir, cleanup } = await tempDir();
      return {
        dir, cleanup, env: SQLITE_WORKER_ENV,
        plugin: (options = {}) => sqlite({ ...options, driver }),
        open: (options = {}) => openStore(path.join(dir, '.oryxos', 'oryx.db'), driver, options),
      };
    },
    sql: {
      table: 'CREATE TABLE t (a INTEGER, b TEXT, c BLOB, d INTEGER)',
      otherTable: 'CREATE TABLE IF NOT EXISTS other_plugin (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, v TEXT)',
      // Another writer taking the same positions, as sqld would report it.
      stealPositions: [`CREATE TRIGGER steal BEFORE INSERT ON messages WHEN NEW.content = 'second'
        BEGIN SELECT RAISE(ABORT, 'UNIQUE constraint failed: messages.session_id, messages.seq'); END`],
    },
    codes: { query: 'ORYX_E_SQLITE_QUERY', closed: 'ORYX_E_SQLITE_CLOSED' },
    propertyRuns: 150,
  };
}
