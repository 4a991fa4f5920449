// The checks of `oryx doctor` that need no running setup: Node against the engines range, and
// the database lines from what the store plugin's `inspect()` reported. The whole command runs
// on real parts (a real database, damaged on purpose) in test/doctor.test.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { DatabaseReport } from '@oryxos/contracts';
import { databaseChecks, checkDatabase, checkNode } from '../src/doctor.ts';

test('node: the running version against the CLI\'s engines range, with how to fix it', () => {
  assert.equal(checkNode('>=20.19', '20.20.2'), { check: 'node', status: 'ok', detail: '20.20.2 (needs >=20.19)' });
  const old = checkNode('>=20.19', '18.19.0');
  assert.equal([old.status, old.detail], ['fail', '18.19.0 does not satisfy >=20.19']);
  assert.match(old.fix!, 'Install Node >=20.19');
});

test('database: current, pending, new, newer than the code, damaged, older than seen, or no store plugin at all', async () => {
  const owner = (name: string, db: number, code: number) => ({
    owner: name, database: db, code, applied: [], pending: Array.from({ length: Math.max(0, code - db) }, (_, i) => ({ version: db + i + 1, name: `m${db + i + 1}` })),
  });
  const report = (owners: DatabaseReport['owners'], more: Partial<DatabaseReport> = {}): DatabaseReport => ({
    dialect: 'sqlite', url: 'file:/p/.oryxos/oryx.db', owners, recorded: {}, warnings: [], ...more,
  });
  const ok = { ok: true, check: 'quick_check', problems: [] };
  assert.equal(databaseChecks(report([owner('sqlite', 5, 5), owner('audit', 2, 2)], { integrity: ok })).map((c) => [c.check, c.status, c.detail]), [
    ['database', 'ok', 'sqlite file:/p/.oryxos/oryx.db: opens; migrations current (sqlite 5, audit 2)'],
    ['database integrity', 'ok', 'quick_check: no damage'],
  ]);
  assert.match(databaseChecks(report([owner('sqlite', 5, 5), owner('audit', 1, 2)]))[0]!.detail,
    '1 migration(s) pending (audit 2), applied at the next start or by `oryx db migrate`');
  assert.match(databaseChecks(report([owner('sqlite', 0, 5)]))[0]!.detail, 'a new database: 5 migration(s) applied at the first start');
  const [newer] = databaseChecks(report([owner('sqlite', 7, 5)]));
  assert.equal([newer!.status, newer!.detail], ['fail', 'sqlite file:/p/.oryxos/oryx.db: the schema of sqlite (7 > 5) is newer than this OryxOS']);
  assert.match(newer!.fix!, 'Upgrade OryxOS');
  const damaged = databaseChecks(report([owner('sqlite', 5, 5)], {
    integrity: { ok: false, check: 'quick_check', problems: [{ kind: 'index', name: 'sessions_by_updated', detail: 'Tree 7 page 7: btreeInitPage() returns error code 11' }], repair: 'oryx db repair' },
  }))[1]!;
  assert.equal([damaged.check, damaged.status], ['database integrity', 'fail']);
  assert.match(damaged.detail, 'quick_check found damage in index sessions_by_updated');
  assert.is(damaged.fix, 'Stop every OryxOS process using it, then run `oryx db repair`.');
  const older = databaseChecks(report([owner('sqlite', 7, 7)], { warnings: [{ code: 'ORYX_E_SQLITE_OLDER_THAN_SEEN', message: 'holds less', hint: 'put it back' }] })).at(-1)!;
  assert.equal([older.status, older.code, older.fix], ['fail', 'ORYX_E_SQLITE_OLDER_THAN_SEEN', 'put it back']);
  assert.is((await checkDatabase(undefined))[0]!.status, 'skip');
});

test.run();
