import type { Migration, SchemaState } from '@oryxos/contracts';

/** What a driver does with migrations: apply one owner's pending ones, read what every owner has. */
export interface MigrationEngine {
  /** Applies `owner`'s pending migrations (one transaction), returning the versions applied. */
  apply(owner: string, migrations: readonly Migration[]): Promise<number[]>;
  /** The newest version recorded per owner (reads only; a database with none yet: `{}`). */
  recorded(): Promise<Record<string, number>>;
}

/**
 * The `migrate(owner, migrations)` of a store plugin's `database` service, and what
 * `inspect()` reports of it. A read-only process defers: each owner's migrations are only
 * remembered, and applied, in the order they were asked for, at the database's first use
 * ({@link applyDeferred}); a command that never queries applies nothing, and `inspect()`
 * reports what is pending without applying it. Any other process applies them at once.
 *
 * @example
 * const gate = new SchemaGate(engine, { deferred: ctx.readOnly });
 * const service = { ...statements, migrate: (owner, list) => gate.migrate(owner, list), inspect: async () => ({ owners: await gate.report() }) };
 */
export class SchemaGate {
  private readonly asked = new Map<string, readonly Migration[]>();
  private readonly before = new Map<string, number>();
  private readonly applied = new Map<string, number[]>();
  private deferring: boolean;

  constructor(private readonly engine: MigrationEngine, options: { deferred: boolean }) {
    this.deferring = options.deferred;
  }

  /** True while migrations are only remembered (a read-only process before its first query). */
  get deferred(): boolean {
    return this.deferring;
  }

  async migrate(owner: string, migrations: readonly Migration[]): Promise<number[]> {
    this.asked.set(owner, migrations);
    if (this.deferring) return [];
    return this.run(owner, migrations);
  }

  /** Applies what was remembered, in the order it was asked for; later calls apply at once. */
  async applyDeferred(): Promise<void> {
    if (!this.deferring) return;
    this.deferring = false;
    for (const [owner, migrations] of this.asked) await this.run(owner, migrations);
  }

  /** Each owner that asked, with its version in the database (before this process applied any), in the code, and what is pending. */
  async report(): Promise<SchemaState[]> {
    const recorded = await this.engine.recorded();
    return [...this.asked].map(([owner, migrations]) => {
      const applied = this.applied.get(owner) ?? [];
      const now = recorded[owner] ?? 0;
      const database = this.before.get(owner) ?? now;
      return {
        owner, database, code: newest(migrations), applied,
        pending: migrations.filter((m) => m.version > now).map((m) => ({ version: m.version, name: m.name })),
      };
    });
  }

  private async run(owner: string, migrations: readonly Migration[]): Promise<number[]> {
    if (!this.before.has(owner)) this.before.set(owner, (await this.engine.recorded())[owner] ?? 0);
    const applied = await this.engine.apply(owner, migrations);
    this.applied.set(owner, [...(this.applied.get(owner) ?? []), ...applied]);
    return applied;
  }
}

function newest(migrations: readonly Migration[]): number {
  return migrations.length ? migrations[migrations.length - 1]!.version : 0;
}
