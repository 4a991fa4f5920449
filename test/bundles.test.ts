// The build bundles each package's dist/ (scripts/bundle-packages.mjs): the built packages must
// behave as their sources, and hold no per-file module a deep import could load a second time.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
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

// scripts/bundle-oclif.mjs patches seven lines of @oclif/core (scripts/oclif-patches.mjs); the
// help test checks that `oryx` says the same with and without them, these check the pieces.
const patches = pathToFileURL(path.resolve('scripts/oclif-patches.mjs')).href;
const { atLeast, idOrder, packageJson, PACKAGE_NAME } = (await import(patches)) as {
  packageJson(name: string, root: string): string | undefined;
  atLeast(version: string, range: string, semver: () => { satisfies(v: string, r: string): boolean }): boolean;
  idOrder(a: string, b: string): number;
  PACKAGE_NAME: RegExp;
};

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
  assert.ok(bundle.includes('satisfies: (version, range) => __oryxosAtLeast(version, range, () => require_semver'), 'and the fourth');
  assert.match(bundle, /node_perf_hooks_1 = \{ performance: globalThis\.performance, get PerformanceObserver\(\) \{\s+return require\("node:perf_hooks"\)/, 'and the fifth');
  assert.match(bundle, /node_child_process_1 = \{ get execSync\(\) \{\s+return require\("node:child_process"\)\.execSync;/, 'and the sixth');
  assert.ok(bundle.includes('pkgPath = __oryxosPackageJson(name, root) ?? require.resolve(name, { paths: [root] });'), 'and the seventh');
});

test('each plugin of oclif.plugins is found where require.resolve and the walk up to its package.json find it', () => {
  const root = path.resolve('.');
  const { oclif } = JSON.parse(readFileSync('package.json', 'utf8')) as { oclif: { plugins: string[] } };
  const require = createRequire(path.join(root, 'package.json'));
  for (const name of oclif.plugins) {
    let dir = path.dirname(require.resolve(name, { paths: [root] }));
    while (!existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
    assert.is(packageJson(name, root), path.join(dir, 'package.json'), name);
  }
  assert.ok(oclif.plugins.length > 10);
  assert.is(packageJson('@oryxos/no-such-plugin', root), undefined);
});

test("Node's version against an engines floor: as semver answers, without semver for >=X.Y.Z", () => {
  const semver = createRequire(import.meta.url)('semver') as { satisfies(v: string, r: string): boolean };
  let asked = 0;
  const lazy = () => { asked++; return semver; };
  let seed = 11;
  const n = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % 4 + 18;
  for (let i = 0; i < 20_000; i++) {
    const version = `${n()}.${n() - 18}.${n() - 18}`;
    const range = ['>=', '>= ', ' >='][i % 3] + [`${n()}`, `${n()}.${n() - 18}`, `${n()}.${n() - 18}.${n() - 18}`][i % 3];
    assert.is(atLeast(version, range, lazy), semver.satisfies(version, range), `${version} against ${range}`);
  }
  assert.is(asked, 0, 'no semver for these');
  // Prereleases, other operators and unions are semver's.
  for (const [version, range] of [['18.0.0-rc.1', '>=18.0.0'], ['20.19.0', '^20.19'], ['16.0.0', '>=14 <18 || >=20'], ['20.1.0', '>=20.x']]) {
    assert.is(atLeast(version, range, lazy), semver.satisfies(version, range), `${version} against ${range}`);
  }
  assert.is(asked, 4);
});

test.run();
