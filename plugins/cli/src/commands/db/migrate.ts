import { withMigrationControl, type MigrationControl } from '@oryxos/sql-store';
import { OryxCommand } from '@oryxos/command-kit';
import { table } from '@oryxos/command-kit';

export default class DbMigrate extends OryxCommand {
  static override summary = 'Apply every enabled plugin\'s pending migrations to the database the config uses.';
  static override description = 'Each plugin\'s migrations run in one transaction (under an advisory lock on PostgreSQL, so several hosts '
    + 'may run this at once). Run it once at deploy time when the processes use postgres({ autoMigrate: false }). A database '
    + 'newer than this code is refused, untouched.';
  static override examples = ['<%= config.bin %> db migrate', '<%= config.bin %> db migrate --json'];
  static override enableJsonFlag = true;

  async run(): Promise<{ dialect: string; url: string; owners: { owner: string; from: number; to: number; applied: number[] }[] }> {
    const control: MigrationControl = { mode: 'apply', reports: [] };
    // Asked for by name: the database is created even in a folder that is no project yet.
    await withMigrationControl(control, () => this.boot({ readOnly: false }));
    const owners = control.reports.map((r) => ({ owner: r.owner, from: r.database, to: Math.max(r.database, ...r.applied), applied: r.applied }));
    const result = { dialect: control.database?.dialect ?? 'unknown', url: control.database?.url ?? '', owners };
    if (!this.jsonEnabled()) {
      this.log(`${result.dialect} ${result.url}`);
      this.log(table(owners.map((o) => ({
        owner: o.owner, version: o.to, applied: o.applied.length ? o.applied.join(', ') : '(up to date)',
      })), ['owner', 'version', 'applied']));
    }
    return result;
  }
}
