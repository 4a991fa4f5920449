// The checks of `oryx doctor` that need no running setup: Node against the engines range, and
// the database verdict from what the store plugin reported. The whole command runs on real
// parts in test/doctor.test.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkDatabase, checkNode } from '../src/doctor.ts';

test('node: the running version against the CLI\'s engines range, with how to fix it', () => {
  assert.equal(checkNode('>=20.19', '20.20.2'), { check: 'node', status: 'ok', detail: '20.20.2 (needs >=20.19)' });
  const old = checkNode('>=20.19', '18.19.0');
  assert.equal([old.status, old.detail], ['fail', '18.19.0 does not satisfy >=20.19']);
  assert.match(old.fix!, 'Install Node >=20.19');
});

test('database: current, pending, new, newer than the code, or no store plugin at all', () => {
  const database = { dialect: 'sqlite', url: 'file:/p/.oryxos/oryx.db' };
  const report = (owner: string, db: number, code: number) => ({
    owner, database: db, code, pending: Array.from({ length: Math.max(0, code - db) }, (_, i) => ({ version: db + i + 1, name: `m${db + i + 1}` })),
  });
  assert.is(checkDatabase({ mode: 'plan', database, reports: [report('sqlite', 5, 5), report('audit', 2, 2)] }).detail,
    'sqlite file:/p/.oryxos/oryx.db: opens; migrations current (sqlite 5, audit 2)');
  assert.match(checkDatabase({ mode: 'plan', database, reports: [report('sqlite', 5, 5), report('audit', 1, 2)] }).detail,
    '1 migration(s) pending (audit 2), applied at the next start or by `oryx db migrate`');
  assert.match(checkDatabase({ mode: 'plan', database, reports: [report('sqlite', 0, 5)] }).detail, 'a new database: 5 migration(s) applied at the first start');
  const newer = checkDatabase({ mode: 'plan', database, reports: [report('sqlite', 7, 5)] });
  assert.equal([newer.status, newer.detail], ['fail', 'sqlite file:/p/.oryxos/oryx.db: the schema of sqlite (7 > 5) is newer than this OryxOS']);
  assert.match(newer.fix!, 'Upgrade OryxOS');
  assert.is(checkDatabase({ mode: 'plan', reports: [] }).status, 'skip');
});

test.run();
