import { withMigrationControl, type MigrationControl } from '@oryxos/sql-store';
import { OryxCommand } from '@oryxos/command-kit';
import { table } from '@oryxos/command-kit';

/** One owner's schema state, as `oryx db status --json` reports it. */
export interface OwnerStatus {
  owner: string;
  /** The version in the database (0: none yet). */
  database: number;
  /** The newest version this code knows (absent: no enabled plugin owns these tables). */
  code?: number;
  state: 'up to date' | 'pending' | 'newer' | 'not enabled';
  pending: { version: number; name: string }[];
}

export default class DbStatus extends OryxCommand {
  static override readOnly = true;
  static override summary = 'The database the config uses, and each plugin\'s schema version there next to the one this code knows.';
  static override description = 'Connects to the database of the store plugin in oryx.config.ts (sqlite or postgres) and changes nothing: '
    + 'every enabled plugin\'s migrations run against a scratch database instead, so the report says what `oryx db migrate` would apply. '
    + 'Exits 1 when the database is newer than this code for some plugin (such a database is refused at start).';
  static override examples = ['<%= config.bin %> db status', '<%= config.bin %> db status --json'];
  static override enableJsonFlag = true;

  async run(): Promise<{ dialect: string; url: string; owners: OwnerStatus[]; pending: number; newer: number }> {
    const control: MigrationControl = { mode: 'plan', reports: [] };
    await withMigrationControl(control, () => this.boot());
    const owners: OwnerStatus[] = control.reports.map((r) => ({
      owner: r.owner, database: r.database, code: r.code, pending: r.pending,
      state: r.database > r.code ? 'newer' : r.pending.length ? 'pending' : 'up to date',
    }));
    for (const [owner, version] of Object.entries(control.recorded ?? {})) {
      if (!owners.some((o) => o.owner === owner)) owners.push({ owner, database: version, state: 'not enabled', pending: [] });
    }
    const result = {
      dialect: control.database?.dialect ?? 'unknown', url: control.database?.url ?? '', owners,
      pending: owners.reduce((n, o) => n + o.pending.length, 0), newer: owners.filter((o) => o.state === 'newer').length,
    };
    if (!this.jsonEnabled()) {
      this.log(`${result.dialect} ${result.url}: connected`);
      this.log(table(owners.map((o) => ({
        owner: o.owner, database: o.database, code: o.code ?? '-',
        state: o.state === 'pending' ? `pending: ${o.pending.map((p) => `${p.version} (${p.name})`).join(', ')}`
          : o.state === 'newer' ? 'NEWER than this code: refused at start' : o.state,
      })), ['owner', 'database', 'code', 'state']));
      if (result.pending) this.log(`\n${result.pending} migration(s) pending: \`${this.config.bin} db migrate\` applies them.`);
    }
    if (result.newer) process.exitCode = 1;
    return result;
  }
}
