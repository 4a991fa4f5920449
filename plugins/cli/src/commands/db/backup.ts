import { Args } from '@oclif/core';
import { OryxError } from '@oryxos/provider-spec';
import { OryxCommand } from '@oryxos/command-kit';

export default class DbBackup extends OryxCommand {
  static override summary = 'Write a consistent copy of the database to FILE, while OryxOS keeps running.';
  static override description = 'The copy is one moment of the database (SQLite: VACUUM INTO, a read transaction), complete with every '
    + 'message committed before it began, even while `oryx web` or a run writes: no need to stop anything. FILE must not exist. '
    + 'The copy is a plain database file: point sqlite({ url }) at it to use it. PostgreSQL databases are backed up with pg_dump '
    + '(see the postgres plugin\'s README).';
  static override examples = ['<%= config.bin %> db backup backups/oryx-2026-12-01.db', '<%= config.bin %> db backup /mnt/backup/oryx.db --json'];
  static override enableJsonFlag = true;
  static override readOnly = true;
  static override args = {
    file: Args.string({ description: 'Where to write the copy (a path that does not exist yet).', required: true }),
  };

  async run(): Promise<{ file: string; bytes: number; from: string }> {
    const { args } = await this.parse(DbBackup);
    const { kernel } = await this.boot();
    const database = kernel.hasService('database') ? kernel.service('database') : undefined;
    if (!database?.backup) {
      throw new OryxError('ORYX_E_DB_BACKUP_UNSUPPORTED', database
        ? `The ${database.dialect} database ${database.url} is not backed up by OryxOS`
        : 'No store plugin is enabled: sessions live in memory, there is no database to back up', {
        hint: database?.dialect === 'postgres' ? 'Use pg_dump (see the backup section of @oryxos/plugin-postgres\'s README).' : 'Enable sqlite() in oryx.config.ts.',
      });
    }
    const copy = await database.backup(args.file);
    if (!this.jsonEnabled()) this.log(`Backed up ${database.url} to ${copy.file} (${copy.bytes} bytes).`);
    return { ...copy, from: database.url };
  }
}
