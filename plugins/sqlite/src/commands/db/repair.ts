import { OryxCommand, table } from '@oryxos/command-kit';
import { OryxError } from '@oryxos/provider-spec';
import { openDatabase } from '../../database.ts';
import { HighWater, observe } from '../../high-water.ts';
import { repairDatabase, type RepairReport } from '../../repair.ts';

export default class DbRepair extends OryxCommand {
  static override summary = 'Repair a damaged SQLite database: rebuild its indexes and recover every readable row into a fresh file.';
  static override description = 'Runs integrity_check on the database the config uses. When it finds damage, every table\'s rows are read from the '
    + 'table itself (never through an index) into a fresh file, every index is built again from them, the fresh file is checked, and '
    + 'it takes the place of the damaged one, which is kept beside it (oryx.db.damaged-<time>, with its -wal). A damaged table gives up '
    + 'only the rows on its unreadable pages. Stop every OryxOS process using the database first (it refuses while one holds a session).';
  static override examples = ['<%= config.bin %> db repair', '<%= config.bin %> db repair --json'];
  static override enableJsonFlag = true;
  static override readOnly = true;

  async run(): Promise<RepairReport> {
    const { kernel } = await this.boot();
    const url = kernel.service('database').url;
    const file = /^file:(.*)$/.exec(url)?.[1];
    if (kernel.service('database').dialect !== 'sqlite' || !file || file === ':memory:') {
      throw new OryxError('ORYX_E_CLI_USAGE', `oryx db repair repairs a SQLite database file; this config's database is ${url}`, {
        hint: 'PostgreSQL repairs its own files: see the backup section of the postgres plugin\'s README (pg_dump, restore).',
      });
    }
    await kernel.close();
    const report = await repairDatabase(file);
    if (report.kept) {
      // The fresh file is the database now: what it holds is the new high-water mark.
      const fresh = await openDatabase({ kind: 'file', path: file }, { driver: 'libsql', busyTimeoutMs: 5000 });
      try { await new HighWater(file).write(await observe(fresh)); } finally { await fresh.close(); }
    }
    if (!this.jsonEnabled()) {
      if (!report.kept) this.log(`${file}: integrity_check found nothing to repair; nothing was changed.`);
      else {
        for (const p of report.problems.slice(0, 10)) this.log(`found: ${p.kind}${p.name ? ` ${p.name}` : ''}: ${p.detail}`);
        this.log(table(report.tables.map((t) => ({ table: t.table, rows: t.rows, note: t.unreadable ? 'some pages unreadable: their rows are lost' : '' })), ['table', 'rows', 'note']));
        this.log(`Rebuilt ${report.indexes.length} index(es). ${file} is repaired; the damaged file is kept as ${report.kept}.`);
      }
    }
    return report;
  }
}
