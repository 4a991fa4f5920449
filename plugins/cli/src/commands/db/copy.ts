import path from 'node:path';
import { Flags } from '@oclif/core';
import { copyDatabase, type CopyReport } from '@oryxos/sql-store';
import { OryxCommand } from '@oryxos/command-kit';
import { openByUrl } from '../../database-url.ts';
import { table } from '@oryxos/command-kit';

export default class DbCopy extends OryxCommand {
  static override summary = 'Copy a project\'s sessions, audit trail, tasks and notifications from one database to another.';
  static override description = 'The target must be migrated (point oryx.config.ts at it and run `oryx db migrate`) and empty. '
    + 'Everything is copied in one transaction on the target; each table\'s row count and checksum are compared after the copy, '
    + 'and a difference rolls it all back. Stop the OryxOS processes that use the source first. Relative file: paths resolve '
    + 'against the folder of oryx.config.ts (the working folder without one). Each side is opened by the store plugin of its kind '
    + '(@oryxos/plugin-sqlite for file: and libsql:, @oryxos/plugin-postgres for postgres:), which must be installed.';
  static override examples = [
    '<%= config.bin %> db copy --from file:.oryxos/oryx.db --to postgres://oryx:secret@db.internal:5432/oryx',
    '<%= config.bin %> db copy --from "$OLD_DATABASE_URL" --to file:backup.db --json',
  ];
  static override enableJsonFlag = true;
  static override flags = {
    from: Flags.string({ summary: 'The database to copy from (file:, libsql:, postgres:).', required: true }),
    to: Flags.string({ summary: 'The migrated, empty database to copy into.', required: true }),
  };

  async run(): Promise<CopyReport> {
    const { flags } = await this.parse(DbCopy);
    const root = flags.config ? path.dirname(path.resolve(flags.config)) : process.cwd();
    const from = await openByUrl(flags.from, root);
    try {
      const to = await openByUrl(flags.to, root);
      try {
        const report = await copyDatabase(from, to);
        if (!this.jsonEnabled()) {
          this.log(`Copied ${report.rows} row(s) from ${report.from} to ${report.to}; counts and checksums match:`);
          this.log(table(report.tables.map((t) => ({ table: t.table, rows: t.rows, checksum: t.checksum.slice(0, 16) })), ['table', 'rows', 'checksum']));
        }
        return report;
      } finally {
        await to.close();
      }
    } finally {
      await from.close();
    }
  }
}
