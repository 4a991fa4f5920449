// The build bundles each package's dist/ (scripts/bundle-packages.mjs): the built packages must
// behave as their sources, and hold no per-file module a deep import could load a second time.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createRedactor as builtRedactor } from '@oryxos/plugin-audit';
import { createRedactor as sourceRedactor } from '../plugins/audit/src/index.ts';

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

test.run();
