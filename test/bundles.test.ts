// The build bundles each package's dist/ (scripts/bundle-packages.mjs): the built packages must
// behave as their sources, and hold no per-file module a deep import could load a second time.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
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
  const dist = path.resolve('plugins/audit/dist');
  const js = readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js')).sort();
  assert.equal(js.filter((f) => !f.startsWith(`chunks${path.sep}`)), ['commands/audit/llm.js', 'commands/audit/sandbox.js', 'commands/audit/summary.js', 'commands/audit/tools.js', 'index.js', 'trail.js'].map((f) => f.replaceAll('/', path.sep)));
  assert.ok(js.some((f) => f.startsWith(`chunks${path.sep}`)), 'the code the entries share is in chunks/');
});

test("Node's modules are taken with process.getBuiltinModule, not imported (no ES module facades)", async () => {
  const { builtinsWithoutImport } = (await import(pathToFileURL(path.resolve('scripts/bundle-builtins.mjs')).href)) as { builtinsWithoutImport(text: string): string };
  const text = 'import path from "node:path";\nimport {\n  readFile as readFile2,\n  stat\n} from "node:fs/promises";\nimport { shape } from "@oryxos/kernel";\nconst s = \'import x from "node:os";\';\nimport c from "crypto";\n';
  assert.is(builtinsWithoutImport(text), 'const path = process.getBuiltinModule("node:path");\nconst {\n  readFile: readFile2,\n  stat\n} = process.getBuiltinModule("node:fs/promises");\nimport { shape } from "@oryxos/kernel";\nconst s = \'import x from "node:os";\';\nconst c = process.getBuiltinModule("crypto");\n');
  // Every built module: no static import of a built-in is left.
  const built = ['kernel/dist', ...['kits', 'plugins'].flatMap((d) => readdirSync(d).map((p) => `${d}/${p}/dist`))];
  let files = 0;
  for (const dist of built) {
    for (const file of readdirSync(dist, { recursive: true, encoding: 'utf8' })) {
      if (!file.endsWith('.js') || file.startsWith('console')) continue;
      files++;
      assert.not.match(readFileSync(path.join(dist, file), 'utf8'), /^import\s[^;]*?from\s*"(node:)?(fs|path|os|url|module|crypto|net|util|child_process|events|stream)(\/[a-z]+)?"/m, `${dist}/${file}`);
    }
  }
  assert.ok(files > 40, `${files} files checked`);
});

test('one copy of yaml: schema-kit/yaml is built with it inside and parses as yaml does; no other built package imports it', async () => {
  const built = await import('@oryxos/schema-kit/yaml');
  const yaml = await import('../kits/schema/src/yaml.ts');
  const text = 'name: a\nlist: [1, 2.5, "x"]\nblock: |\n  two\n  lines\nanchor: &a { k: v }\nref: *a\n';
  assert.equal(built.parse(text), yaml.parse(text));
  assert.is(built.parseDocument('a: 1\na: 2', { uniqueKeys: true }).errors[0]?.code, 'DUPLICATE_KEY');
  const kit = readFileSync(path.resolve('kits/schema/dist/yaml.js'), 'utf8');
  assert.not.match(kit, /from\s*"yaml"|import\("yaml"\)|require\("yaml"\)/, 'schema-kit/yaml holds the library, it does not import it');
  const dists = ['kernel/dist', ...['kits', 'plugins'].flatMap((d) => readdirSync(d).map((p) => `${d}/${p}/dist`))];
  for (const dist of dists) {
    for (const file of readdirSync(dist, { recursive: true, encoding: 'utf8' })) {
      if (!file.endsWith('.js') || file.startsWith('console')) continue;
      assert.not.match(readFileSync(path.join(dist, file), 'utf8'), /from\s*"yaml(\/[^"]*)?"|import\("yaml"\)/, `${dist}/${file} imports yaml: take it from @oryxos/schema-kit/yaml`);
    }
  }
});

test.run();
