// The build bundles each package's dist/ (scripts/bundle-packages.mjs): the built packages must
// behave as their sources, and hold no per-file module a deep import could load a second time.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createRedactor as builtRedactor } from '@oryxos/plugin-audit/trail';
import { createRedactor as sourceRedactor } from '../plugins/audit/src/trail.ts';

// Real-looking credentials, built here so no scanner mistakes this file for a leak.
const secrets = [
  `OPENAI_API_KEY=sk-proj-${'Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z'.repeat(3)}`,
  `slack ${['xoxb', '123456789012', '1234567890123', 'AbCdEfGhIjKlMnOpQrStUvWx'].join('-')}`,
  `github ${`gho_${'16C7e42F292c6912E7710c838347Ae178B4a'}`}`,
  `npm ${`npm_${'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'}`}`,
  `aws ${'AKIA' + 'QWERTYUIOPASDFGH'}`,
  'fetch https://deploy:' + 'Tr0ub4dor&3x'.repeat(2) + '@example.com/hook',
  'DATABASE_URL=postgres://app:s3cretPassw0rd@db.internal:5432/app',
  'an ordinary line with nothing secret in it',
].join('\n');

test('the audit redactor built with secretlint inside redacts exactly as its source does', async () => {
  const built = await builtRedactor()(secrets);
  const source = await sourceRedactor()(secrets);
  assert.is(built, source);
  assert.is.not(built, secrets, 'something was redacted');
  assert.match(built, 'an ordinary line with nothing secret in it');
});

test('a built package holds its entry files and chunks, no per-file module of its sources', () => {
  const dist = path.resolve('kernel/dist');
  const js = readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js')).sort();
  assert.equal(js.filter((f) => !f.startsWith(`chunks${path.sep}`)), ['index.js', 'internal.js']);
  assert.ok(js.some((f) => f.startsWith(`chunks${path.sep}`)), 'the code the entries share is in chunks/');
});

// scripts/bundle-oclif.mjs patches three lines of @oclif/core (scripts/oclif-patches.mjs); the
// help test checks that `oryx` says the same with and without them, these check the pieces.
const patches = pathToFileURL(path.resolve('scripts/oclif-patches.mjs')).href;
const { idOrder, PACKAGE_NAME } = (await import(patches)) as { idOrder(a: string, b: string): number; PACKAGE_NAME: RegExp };

test('command ids sort as localeCompare sorts them, without ICU for the usual ids', () => {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789:-';
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const id = () => Array.from({ length: 1 + Math.floor(random() * 8) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
  for (let i = 0; i < 20_000; i++) {
    const [a, b] = [id(), id()];
    assert.is(idOrder(a, b), Math.sign(a.localeCompare(b)), `${a} vs ${b}`);
  }
  // `:` before digits (a code-unit order would put it after), and ids outside the alphabet use localeCompare.
  assert.equal(['sessions2', 'sessions:list', 'sessions-x', 'sessions'].sort(idOrder), ['sessions', 'sessions-x', 'sessions:list', 'sessions2']);
  assert.equal(['b', 'B', 'a', 'é'].sort(idOrder), ['b', 'B', 'a', 'é'].sort((x, y) => x.localeCompare(y)));
});

test('a plain package name in oclif.plugins matches only itself; a glob still goes to minimatch', () => {
  for (const name of ['@oryxos/plugin-sqlite', '@oclif/plugin-help', 'oryx-plugin-x', 'a.b_c']) assert.ok(PACKAGE_NAME.test(name), name);
  for (const glob of ['@oryxos/plugin-*', '@oclif/plugin-{help,plugins}', '!@oclif/x', '#comment', 'a/b/c', '@scope/?']) assert.not.ok(PACKAGE_NAME.test(glob), glob);
  const bundle = readFileSync('plugins/cli/dist/oclif-core.cjs', 'utf8');
  assert.ok(bundle.includes('__oryxosPackageName.test(w) ? p === w : (0, minimatch_1.minimatch)(p, w)'), 'the built @oclif/core holds the first patch');
  assert.ok(bundle.includes('.sort((a, b) => __oryxosIdOrder(a.id, b.id))'), 'and the second');
  assert.ok(bundle.includes('const contents = (0, node_fs_1.readFileSync)(path, "utf8");'), 'and the third');
});

test.run();
