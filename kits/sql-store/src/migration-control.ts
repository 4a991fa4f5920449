import type { Migration, SqlDialect } from '@oryxos/contracts';

/** What one owner's migrations look like against the database: found there, known to the code, what was or would be applied. */
export interface MigrationReport {
  owner: string;
  /** The version recorded in the database before this boot (0: none). */
  database: number;
  /** The newest version the code knows. */
  code: number;
  /** Versions applied by this boot. */
  applied: number[];
  /** Versions not applied yet (plan mode: what `oryx db migrate` would apply). */
  pending: { version: number; name: string }[];
}

/**
 * What the `oryx db` commands ask of the store plugin of the kernel they boot, and what the store
 * reports back. `plan`: apply nothing to the configured database (the plugins' migrations run
 * against a scratch database instead, so every plugin starts) and report what is pending;
 * `apply`: apply every pending migration, even where the plugin is set not to.
 */
export interface MigrationControl {
  mode: 'plan' | 'apply';
  /** One entry per owner that registered migrations, in the order they did. */
  reports: MigrationReport[];
  /** Owners the database has versions for (plan mode reads them before anything else). */
  recorded?: Record<string, number>;
  /** The database the store plugin serves (its URL without secrets). */
  database?: { dialect: SqlDialect; url: string };
}

const KEY = Symbol.for('oryxos.database.migrationControl');

/** The control of the `oryx db` command running in this process, if any. */
export function migrationControl(): MigrationControl | undefined {
  return (globalThis as { [KEY]?: MigrationControl })[KEY];
}

/**
 * Runs `fn` (which boots a kernel) with `control` in force; store plugins read it in setup.
 *
 * @example
 * const control: MigrationControl = { mode: 'plan', reports: [] };
 * await withMigrationControl(control, () => this.boot());
 * for (const r of control.reports) console.log(r.owner, r.database, r.code, r.pending);
 */
export async function withMigrationControl<T>(control: MigrationControl, fn: () => Promise<T>): Promise<T> {
  const holder = globalThis as { [KEY]?: MigrationControl };
  holder[KEY] = control;
  try {
    return await fn();
  } finally {
    if (holder[KEY] === control) delete holder[KEY];
  }
}

/**
 * Wraps a store plugin's `migrate(owner, migrations)` so every call is reported to `control`.
 * `found(owner)` says what the database held before.
 */
export function reportingMigrate(
  control: MigrationControl,
  migrate: (owner: string, migrations: readonly Migration[]) => Promise<number[]>,
  found: (owner: string) => Promise<number>,
): (owner: string, migrations: readonly Migration[]) => Promise<number[]> {
  return async (owner, migrations) => {
    const before = await found(owner);
    const code = migrations.length ? migrations[migrations.length - 1]!.version : 0;
    const report: MigrationReport = { owner, database: before, code, applied: [], pending: [] };
    control.reports.push(report);
    const applied = await migrate(owner, migrations);
    report.applied = control.mode === 'plan' ? [] : applied;
    report.pending = migrations.filter((m) => m.version > before && !report.applied.includes(m.version)).map((m) => ({ version: m.version, name: m.name }));
    return applied;
  };
}
