import { existsSync, realpathSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { chmod, chown, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { resolveConfig } from '@oryxos/kernel';
import type { OryxError } from '@oryxos/provider-spec';
import { runOryx, tempProject } from '@oryxos/kernel/testing';
import { assertConfigIsYours, findConfigFile, ImportAliases, importAliases, loadConfig, packageEntries } from '../src/index.ts';
import { cacheKey } from '@oryxos/command-kit';

let dir: string;
// The compiled configs go to a cache and state folder of this test's own, not the user's.
const saved = { XDG_CACHE_HOME: process.env.XDG_CACHE_HOME, XDG_STATE_HOME: process.env.XDG_STATE_HOME };
test.before.each(async () => {
  dir = await tempProject('config-');
  // A project folder (the checkout above has a config of its own, and a plain folder's config below it is refused).
  await mkdir(path.join(dir, '.oryxos'));
  process.env.XDG_CACHE_HOME = path.join(dir, '.user', 'cache');
  process.env.XDG_STATE_HOME = path.join(dir, '.user', 'state');
});
test.after.each(async () => {
  for (const [k, v] of Object.entries(saved)) { if (v === undefined) delete process.env[k]; else process.env[k] = v; }
  await rm(dir, { recursive: true, force: true });
});

async function err(fn: () => Promise<unknown>): Promise<OryxError> {
  try { await fn(); } catch (e) { return e as OryxError; }
  throw new Error('expected an error');
}

test('oryx.config.ts is found from a subfolder up, typed with defineConfig, with its plugins', async () => {
  await writeFile(path.join(dir, 'oryx.config.ts'), `
    import { defineConfig } from '@oryxos/kernel';
    import { scripted } from '@oryxos/kernel/testing';
    const workspace: string = 'ws';
    export default defineConfig({ workspace, defaultAgent: 'helper', plugins: [scripted([{ text: 'x' }])] });
  `);
  await mkdir(path.join(dir, 'a', 'b'), { recursive: true });
  const config = await loadConfig({ cwd: path.join(dir, 'a', 'b') });
  assert.ok(config);
  assert.is(config!.root, dir);
  assert.is(config!.workspaceDir, path.join(dir, 'ws'));
  assert.is(config!.defaultAgent, 'helper');
  assert.equal(config!.plugins.map((p) => p.name), ['provider-scripted']);
  assert.is(config!.file, path.join(dir, 'oryx.config.ts'));
});

test('the cache key: 32 hex digits, the same for the same text, different for 200,000 near-identical configs', () => {
  const base = JSON.stringify([1, '/p/oryx.config.ts', "export default defineConfig({ plugins: [sqlite()] });\n", {}]);
  assert.match(cacheKey(base), /^[0-9a-f]{32}$/);
  assert.is(cacheKey(base), cacheKey(`${base}`));
  const seen = new Map<string, string>();
  const variants = (i: number) => [base.replace('sqlite()', `sqlite({ busyTimeoutMs: ${i} })`), base.slice(0, i % base.length) + String.fromCharCode(32 + (i % 90)) + base.slice(i % base.length)];
  for (let i = 0; i < 100_000; i++) {
    for (const text of variants(i)) {
      const key = cacheKey(text);
      const other = seen.get(key);
      assert.ok(other === undefined || other === text, `one key for two texts: ${JSON.stringify(other)} and ${JSON.stringify(text)}`);
      seen.set(key, text);
    }
  }
  // Every lane moves with a one-character change (no lane's 8 digits stay the same).
  const a = cacheKey(base).match(/.{8}/g)!;
  const b = cacheKey(base.replace('sqlite', 'sqlitf')).match(/.{8}/g)!;
  a.forEach((lane, i) => assert.is.not(lane, b[i], `lane ${i}`));
});

test('--config loads the named file; a missing one is ORYX_E_CONFIG_NOT_FOUND', async () => {
  await writeFile(path.join(dir, 'other.config.mjs'), `export default { plugins: [] };`);
  const config = await loadConfig({ cwd: dir, file: 'other.config.mjs' });
  assert.equal(config!.plugins, []);
  const e = await err(() => loadConfig({ cwd: dir, file: 'nope.ts' }));
  assert.is(e.code, 'ORYX_E_CONFIG_NOT_FOUND');
  assert.match(e.message, 'nope.ts');
});

test('a plugin factory not called is named as the bad field', async () => {
  await writeFile(path.join(dir, 'oryx.config.ts'), `
    import { scripted } from '@oryxos/kernel/testing';
    export default { plugins: [scripted] };
  `);
  const e = await err(() => loadConfig({ cwd: dir }));
  assert.is(e.code, 'ORYX_E_CONFIG_INVALID');
  assert.match(e.message, 'plugins.0');
  assert.match(e.hint!, 'plugins: [sqlite()]');
});

test('wrong field types name the field', async () => {
  const e1 = await err(async () => resolveConfig({ plugins: [], defaultAgent: 42 }, dir));
  assert.is(e1.code, 'ORYX_E_CONFIG_INVALID');
  assert.match(e1.message, 'defaultAgent must be');
  const e2 = await err(async () => resolveConfig({}, dir));
  assert.match(e2.message, 'plugins must be');
  const ok = resolveConfig({ plugins: [], defaultProvider: undefined }, dir);
  assert.is(ok.defaultProvider, undefined);
  assert.is(ok.defaultAgent, 'assistant');
});

test('an unknown config key names the file, its line, the closest key and the known ones', async () => {
  await writeFile(path.join(dir, 'oryx.config.ts'), `import { defineConfig } from '@oryxos/kernel';
export default defineConfig({
  plugins: [],
  defaultAgnet: 'helper',
} as never);
`);
  const e = await err(() => loadConfig({ cwd: dir }));
  assert.is(e.code, 'ORYX_E_CONFIG_INVALID');
  assert.match(e.message, /oryx\.config\.ts:4: unknown key "defaultAgnet" \(did you mean "defaultAgent"\?\)/);
  assert.match(e.message, 'known options: plugins, defaultAgent, defaultProvider, hooks, settings, workspace');
  assert.equal(e.data, { field: 'defaultAgnet', line: 4 });
});

test('a config file that throws is ORYX_E_CONFIG_LOAD with the cause', async () => {
  await writeFile(path.join(dir, 'oryx.config.ts'), `import x from '@oryxos/plugin-does-not-exist';\nexport default { plugins: [x()] };`);
  const e = await err(() => loadConfig({ cwd: dir }));
  assert.is(e.code, 'ORYX_E_CONFIG_LOAD');
  assert.match(e.message, 'plugin-does-not-exist');
});

// A config file runs as code: only the one the user chose may run.
const planted = (marker: string) => `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, 'ran');\nexport default { plugins: [] };\n`;

test('discovery never runs .config/ meta config, and stops at the project folder', async () => {
  const marker = path.join(dir, 'marker');
  // .config/config.mjs (cosmiconfig's meta config) and siblings in the working folder
  await mkdir(path.join(dir, 'proj', '.config'), { recursive: true });
  for (const name of ['config.mjs', 'config.js', 'config.ts', 'oryxrc.mjs']) await writeFile(path.join(dir, 'proj', '.config', name), planted(marker));
  await writeFile(path.join(dir, 'proj', 'package.json'), '{}');
  assert.is(await loadConfig({ cwd: path.join(dir, 'proj') }), undefined);
  // an oryx.config.* above the project folder (a package.json, .git or .oryxos marks it)
  await writeFile(path.join(dir, 'oryx.config.mjs'), planted(marker));
  for (const marked of ['package.json', '.git', '.oryxos']) {
    const proj = path.join(dir, `p-${marked}`);
    await mkdir(path.join(proj, marked === 'package.json' ? '' : marked, 'sub'), { recursive: true });
    if (marked === 'package.json') await writeFile(path.join(proj, 'package.json'), '{}');
    assert.is(await findConfigFile(path.join(proj, marked === 'package.json' ? 'sub' : '')), undefined, marked);
    assert.is(await loadConfig({ cwd: proj }), undefined, marked);
  }
  assert.not.ok(existsSync(marker), 'a planted config ran');
  // without a project folder in between, the project's config is found from its plain folders
  await mkdir(path.join(dir, 'plain', 'sub'), { recursive: true });
  assert.is(await findConfigFile(path.join(dir, 'plain', 'sub')), path.join(dir, 'oryx.config.mjs'));
});

test('two config files in one folder: refused, naming both, and neither runs; --config runs the one named', async () => {
  const marker = path.join(dir, 'marker');
  await writeFile(path.join(dir, 'oryx.config.mjs'), `export default { plugins: [], defaultAgent: 'mine' };\n`);
  // What an agent may write beside a config written as .mjs: discovery looked for .ts first.
  await writeFile(path.join(dir, 'oryx.config.ts'), planted(marker));
  await mkdir(path.join(dir, 'src'));
  for (const cwd of [dir, path.join(dir, 'src')]) {
    const e = await err(() => loadConfig({ cwd }));
    assert.is(e.code, 'ORYX_E_CONFIG_AMBIGUOUS');
    assert.is(e.message, `${dir} holds 2 config files (oryx.config.ts, oryx.config.mjs), so oryx runs none of them`);
    assert.match(e.hint!, `--config ${path.join(dir, 'oryx.config.mjs')}`);
    assert.equal(e.data, { dir, files: [path.join(dir, 'oryx.config.ts'), path.join(dir, 'oryx.config.mjs')] });
  }
  assert.not.ok(existsSync(marker), 'the planted config ran');
  assert.is((await loadConfig({ cwd: dir, file: 'oryx.config.mjs' }))!.defaultAgent, 'mine');
  assert.not.ok(existsSync(marker));
});

test('a config in a plain sub folder of a project that has one is refused from there, and neither runs; a sub folder that is a project of its own is fine', async () => {
  const marker = path.join(dir, 'marker');
  await writeFile(path.join(dir, 'oryx.config.mjs'), `export default { plugins: [], defaultAgent: 'project' };\n`);
  await mkdir(path.join(dir, 'sub', 'deeper'), { recursive: true });
  await writeFile(path.join(dir, 'sub', 'oryx.config.ts'), planted(marker));
  for (const cwd of [path.join(dir, 'sub'), path.join(dir, 'sub', 'deeper')]) {
    const e = await err(() => loadConfig({ cwd }));
    assert.is(e.code, 'ORYX_E_CONFIG_NESTED');
    assert.match(e.message, `${path.join(dir, 'sub', 'oryx.config.ts')} is in a folder of the project ${dir} (config oryx.config.mjs)`);
    assert.match(e.hint!, `Run oryx from ${dir}`);
    assert.match(e.hint!, `oryx init --dir ${path.join(dir, 'sub')}`);
  }
  assert.not.ok(existsSync(marker), 'the nested config ran');
  assert.is((await loadConfig({ cwd: dir }))!.defaultAgent, 'project', 'from the project folder, its own config');
  // Two levels: a plain folder between the nested config and the project's does not hide it.
  await rm(path.join(dir, 'sub', 'oryx.config.ts'));
  await writeFile(path.join(dir, 'sub', 'deeper', 'oryx.config.ts'), planted(marker));
  assert.is((await err(() => loadConfig({ cwd: path.join(dir, 'sub', 'deeper') }))).code, 'ORYX_E_CONFIG_NESTED');
  assert.not.ok(existsSync(marker));
  // A sub folder with a marker of its own is its own project (a monorepo package, oryx init there).
  await rm(path.join(dir, 'sub', 'deeper', 'oryx.config.ts'));
  await writeFile(path.join(dir, 'sub', 'oryx.config.mjs'), `export default { plugins: [], defaultAgent: 'sub' };\n`);
  await writeFile(path.join(dir, 'sub', 'package.json'), '{}');
  assert.is((await loadConfig({ cwd: path.join(dir, 'sub', 'deeper') }))!.defaultAgent, 'sub');
  // Named with --config, a nested config runs: the user chose it.
  await rm(path.join(dir, 'sub', 'package.json'));
  assert.is((await err(() => loadConfig({ cwd: path.join(dir, 'sub') }))).code, 'ORYX_E_CONFIG_NESTED');
  assert.is((await loadConfig({ cwd: path.join(dir, 'sub'), file: 'oryx.config.mjs' }))!.defaultAgent, 'sub');
});

test('through the CLI: oryx agents in a folder with a planted second config fails with the code and the fix, and runs nothing', async () => {
  const marker = path.join(dir, 'marker');
  await writeFile(path.join(dir, 'oryx.config.mjs'), `export default { plugins: [] };\n`);
  await writeFile(path.join(dir, 'oryx.config.ts'), planted(marker));
  const r = await runOryx(['agents'], { cwd: dir });
  assert.is(r.code, 1, r.stdout);
  assert.match(r.stderr, `error ORYX_E_CONFIG_AMBIGUOUS: ${dir} holds 2 config files (oryx.config.ts, oryx.config.mjs), so oryx runs none of them`);
  assert.match(r.stderr, '  hint: Keep the one you wrote and delete the others, or name it with --config');
  assert.not.ok(existsSync(marker));
  const named = await runOryx(['agents', '--config', 'oryx.config.mjs'], { cwd: dir });
  assert.is(named.code, 0, named.stderr);
  assert.not.ok(existsSync(marker));
});

test('a config in a world-writable folder is refused, found or named, and does not run', async () => {
  const shared = await mkdtemp(path.join(tmpdir(), 'oryx-shared-'));
  try {
    await chmod(shared, 0o1777); // like /tmp
    const marker = path.join(dir, 'marker');
    await writeFile(path.join(shared, 'oryx.config.mjs'), planted(marker));
    for (const attempt of [() => loadConfig({ cwd: shared }), () => loadConfig({ cwd: dir, file: path.join(shared, 'oryx.config.mjs') })]) {
      const e = await err(attempt);
      assert.is(e.code, 'ORYX_E_CONFIG_UNSAFE');
      assert.match(e.message, path.join(shared, 'oryx.config.mjs'));
      assert.match(e.message, 'is writable by every user');
    }
    await chmod(shared, 0o755);
    await chmod(path.join(shared, 'oryx.config.mjs'), 0o666);
    assert.match((await err(() => loadConfig({ cwd: shared }))).message, 'every user may write to it');
    assert.not.ok(existsSync(marker), 'the planted config ran');
  } finally {
    await rm(shared, { recursive: true, force: true });
  }
});

test('a config owned by another user is refused and does not run', async () => {
  const marker = path.join(dir, 'marker');
  const file = path.join(dir, 'oryx.config.mjs');
  await writeFile(file, planted(marker));
  if (process.getuid!() === 0) {
    await chown(file, 65534, 65534); // root can hand the file to "nobody"
    const e = await err(() => loadConfig({ cwd: dir }));
    assert.is(e.code, 'ORYX_E_CONFIG_UNSAFE');
    assert.match(e.message, `${file}: it is owned by another user (uid 65534)`);
  } else {
    // Without root no file can be given away: check the rule for another user instead.
    const e = await err(() => assertConfigIsYours(file, process.getuid!() + 1));
    assert.match(e.message, /it is owned by another user/);
  }
  assert.not.ok(existsSync(marker), 'the config ran');
});

test('ImportAliases.file resolves a bare import of the project\'s own packages to the file Node\'s import would load, for every package of the checkout', async () => {
  // From this test's folder, so Node's import.meta.resolve here and file() look from the same place.
  const here = import.meta.dirname;
  const aliases = new ImportAliases(here, []);
  const root = path.resolve(here, '..', '..', '..', 'node_modules');
  const names = (await readdir(root)).filter((n) => !n.startsWith('.')).flatMap((n) => (n.startsWith('@') ? [] : [n]));
  for (const scope of (await readdir(root)).filter((n) => n.startsWith('@'))) names.push(...(await readdir(path.join(root, scope))).map((n) => `${scope}/${n}`));
  let compared = 0;
  for (const name of names) {
    let ids: string[];
    try { ids = Object.keys(packageEntries(path.join(root, name)).entries); } catch { continue; }
    for (const id of ids.length ? ids : [name]) {
      let node: string | undefined;
      try { node = fileURLToPath(import.meta.resolve(id)); } catch { node = undefined; }
      if (builtinModules.includes(id)) continue; // Node's own module wins (the config's importer asks for those first)
      const ours = aliases.file(id);
      if (ours === undefined) continue; // left to jiti, which resolves it itself
      assert.is(ours, node && realpathSync(node), id);
      compared++;
    }
  }
  assert.ok(compared > 300, `${compared} imports compared`);
});

test('ImportAliases answers each import as the whole map of importAliases does, first source first, the project\'s own copy winning', async () => {
  const outside = await mkdtemp(path.join(tmpdir(), 'oryx-aliases-'));
  try {
    // A second source (a plugins folder): one package of its own, and a kernel the first source also offers.
    const data = path.join(outside, 'data');
    const dep = async (name: string, json: Record<string, unknown>) => {
      await mkdir(path.join(data, 'node_modules', name, 'lib'), { recursive: true });
      await writeFile(path.join(data, 'node_modules', name, 'package.json'), JSON.stringify({ name, version: '1.0.0', ...json }));
      await writeFile(path.join(data, 'node_modules', name, 'lib', 'x.js'), '');
    };
    await mkdir(data, { recursive: true });
    await writeFile(path.join(data, 'package.json'), JSON.stringify({ dependencies: { 'extra-plugin': '1.0.0', '@oryxos/kernel': '1.0.0' } }));
    await dep('extra-plugin', { exports: { '.': './lib/x.js', './sub': { import: './lib/x.js' }, './missing': './lib/none.js' } });
    await dep('@oryxos/kernel', { main: 'lib/x.js' });
    const project = path.join(outside, 'project');
    await mkdir(project);
    const sources = [path.resolve('.'), data];
    const map = await importAliases(project, sources);
    const aliases = new ImportAliases(project, sources);
    const ids = [...Object.keys(map), 'extra-plugin/missing', 'left-pad', '@oryxos/nope', '@oryxos/kernel/nope'];
    assert.ok(Object.keys(map).length > 20, 'the installation offers its packages');
    assert.ok(map['extra-plugin/sub'], 'and the second source its own');
    assert.not.ok(map['@oryxos/kernel']!.startsWith(data), 'the first source wins');
    for (const id of ids) assert.is(aliases.get(id), map[id], id);
    // A project with a copy of its own: no alias for that package.
    await mkdir(path.join(project, 'node_modules', 'extra-plugin'), { recursive: true });
    await writeFile(path.join(project, 'node_modules', 'extra-plugin', 'package.json'), '{"name":"extra-plugin"}');
    const own = new ImportAliases(project, sources);
    assert.is(own.get('extra-plugin'), undefined);
    assert.is((await importAliases(project, sources))['extra-plugin'], undefined);
    assert.is(own.get('@oryxos/kernel'), map['@oryxos/kernel']);
  } finally {
    await rm(outside, { recursive: true, force: true });
  }
});

test.run();
