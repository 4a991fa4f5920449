// `oryx plugins install` runs nothing (issue 34), with a real `npm pack` and `npm install` of local
// packages through the checkout's built CLI (bin/run.js; npm test builds first): lifecycle scripts
// that write a marker never run, whether the package is installed or refused; a refused package
// leaves nothing installed; a folder is installed as a copy; an added plugin's oclif hooks never
// run; two plugins never share a registry entry. Registry packages come from a loopback server
// speaking the npm registry's read API (a package document with `versions[v].dist.tarball`,
// `shasum` and `integrity`, and the tarball at that URL: the registry API docs,
// github.com/npm/registry/blob/main/docs/REGISTRY-API.md), so the real npm client fetches them.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, readdir, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOryx } from '@oryxos/kernel/testing';
import { installSource } from '../src/plugin-pack.ts';
import { readTarball } from '../src/tarball.ts';

const repo = path.resolve(import.meta.dirname, '..', '..', '..');
const fixture = path.join(repo, 'test', 'fixtures', 'oryx-plugin-shout');
let base: string;
let data: string;
let project: string;

test.before.each(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), 'oryx-install-runs-nothing-')));
  data = path.join(base, 'data', 'oryxos');
  project = path.join(base, 'project');
  await mkdir(project);
});
test.after.each(async () => { await rm(base, { recursive: true, force: true }); });

let registryUrl: string | undefined;
const oryx = (args: string[], cwd = project) => runOryx(args, {
  cwd, timeoutMs: 120_000,
  env: {
    HOME: path.join(base, 'home'), XDG_DATA_HOME: path.join(base, 'data'), XDG_CACHE_HOME: path.join(base, 'cache'), XDG_STATE_HOME: path.join(base, 'state'),
    OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined,
    ...(registryUrl ? { npm_config_registry: registryUrl, npm_config_cache: path.join(base, 'npm-cache') } : {}),
  },
});

/** A loopback npm registry serving the packages packed from `folders`; `requests` lists what npm asked for. */
async function registry(folders: string[]): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const docs = new Map<string, unknown>();
  const tarballs = new Map<string, Buffer>();
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const url = decodeURIComponent(req.url ?? '');
    const file = tarballs.get(url);
    if (file) { res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(file); return; }
    const doc = docs.get(url.slice(1));
    if (doc) { res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc)); return; }
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
  });
  const requests: string[] = [];
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const out = await mkdtemp(path.join(base, 'registry-'));
  for (const folder of folders) {
    const [packed] = JSON.parse(execFileSync('npm', ['pack', folder, '--ignore-scripts', '--json', '--pack-destination', out], { encoding: 'utf8' })) as { filename: string }[];
    const bytes = await readFile(path.join(out, packed!.filename));
    const pkg = JSON.parse(await readFile(path.join(folder, 'package.json'), 'utf8'));
    const tarball = `/${pkg.name}/-/${packed!.filename}`;
    tarballs.set(tarball, bytes);
    docs.set(pkg.name, {
      _id: pkg.name, name: pkg.name, 'dist-tags': { latest: pkg.version },
      versions: { [pkg.version]: { ...pkg, _id: `${pkg.name}@${pkg.version}`, dist: {
        tarball: `${url}${tarball}`, shasum: createHash('sha1').update(bytes).digest('hex'), integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
      } } },
    });
  }
  registryUrl = `${url}/`;
  return { url, requests, close: () => { registryUrl = undefined; return new Promise((resolve) => server.close(() => resolve())); } };
}
const json = async (args: string[]) => {
  const r = await oryx([...args, '--json']);
  assert.is(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
  return JSON.parse(r.stdout);
};
const rows = async () => (await json(['plugins'])).items.filter((p: { from: string }) => p.from !== 'bundled') as { package: string; version: string; root: string; from: string }[];

/** Every npm lifecycle script a package can have, each leaving `marks/<name>` when it runs. */
const scripts = (marks: string) => Object.fromEntries(['preinstall', 'install', 'postinstall', 'prepare', 'prepack', 'postpack'].map((name) => [
  name, `node -e "require('fs').mkdirSync('${marks}',{recursive:true});require('fs').writeFileSync('${marks}/${name}','ran')"`,
]));
const marked = async (marks: string) => (existsSync(marks) ? (await readdir(marks)).sort() : []);

/** A copy of the fixture plugin in `dir`, its package.json changed by `edit`. */
async function pluginFolder(dir: string, edit: (pkg: Record<string, unknown>) => Record<string, unknown> = (p) => p): Promise<string> {
  await cp(fixture, dir, { recursive: true });
  const file = path.join(dir, 'package.json');
  await writeFile(file, JSON.stringify(edit(JSON.parse(await readFile(file, 'utf8'))), null, 2));
  return dir;
}

test('a plugin whose every lifecycle script writes a marker installs from a folder with none of them run, as a copy, and the output says so', async () => {
  const marks = path.join(base, 'marks');
  const folder = await pluginFolder(path.join(base, 'shout'), (pkg) => ({ ...pkg, scripts: scripts(marks) }));
  assert.is((await oryx(['init'])).code, 0);
  const r = await oryx(['plugins', 'install', folder]);
  assert.equal(await marked(marks), [], 'a lifecycle script ran');
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, 'installed oryx-plugin-shout@1.2.3: an OryxOS plugin for kernel ^1 and commands');
  assert.match(r.stdout, 'its npm scripts did not run (installed with --ignore-scripts)');
  const [row] = await rows();
  assert.equal([row!.package, row!.from, row!.root], ['oryx-plugin-shout', 'installed', path.join(data, 'node_modules', 'oryx-plugin-shout')]);
  // A copy: what the folder holds later (an agent allowed to write it, say) is not what runs.
  await writeFile(path.join(folder, 'commands', 'shout.js'), `throw new Error('rewritten after install');\n`);
  const shouted = await json(['shout', 'hi']);
  assert.is(shouted.shout, 'HI!');
  assert.match(await readFile(path.join(data, '.npmrc'), 'utf8'), /^ignore-scripts=true$/m);
  assert.equal(await marked(marks), []);
});

test('a package that is no plugin, with scripts that write markers, is refused before any of them runs, and nothing is installed — as a folder and as a tarball', async () => {
  const marks = path.join(base, 'marks');
  const folder = path.join(base, 'not-a-plugin');
  await mkdir(folder);
  await writeFile(path.join(folder, 'package.json'), JSON.stringify({ name: 'left-pad-ish', version: '1.0.0', scripts: scripts(marks) }));
  await writeFile(path.join(folder, 'index.js'), 'module.exports = 1;\n');
  const r = await oryx(['plugins', 'install', folder]);
  assert.is(r.code, 1, r.stdout);
  assert.match(r.stderr, 'error ORYX_E_PLUGINS_NOT_A_PLUGIN: left-pad-ish is not an OryxOS plugin');
  assert.equal(await marked(marks), [], 'a script of the refused package ran');
  assert.not.ok(existsSync(path.join(data, 'node_modules', 'left-pad-ish')), 'it was installed');
  const tarball = path.join(base, 'left-pad-ish-1.0.0.tgz');
  execFileSync('npm', ['pack', folder, '--ignore-scripts', '--pack-destination', base], { stdio: 'ignore' });
  const t = await oryx(['plugins', 'install', tarball]);
  assert.is(t.code, 1, t.stdout);
  assert.match(t.stderr, 'ORYX_E_PLUGINS_NOT_A_PLUGIN');
  assert.equal(await marked(marks), []);
  assert.not.ok(existsSync(path.join(data, 'node_modules', 'left-pad-ish')));
  const pkg = existsSync(path.join(data, 'package.json')) ? JSON.parse(await readFile(path.join(data, 'package.json'), 'utf8')) : {};
  assert.equal(pkg.dependencies ?? {}, {}, 'no dependency recorded');
  assert.equal((await readdir(data).catch(() => [])).filter((f) => f.startsWith('.staging')), [], 'no staging folder left');
  assert.equal(await rows(), []);
});

test('a registry package that is no plugin, whose scripts write markers, is refused before any of them runs and is not installed; a registry plugin installs with none run', async () => {
  const marks = path.join(base, 'marks');
  const plain = path.join(base, 'plain');
  await mkdir(plain);
  await writeFile(path.join(plain, 'package.json'), JSON.stringify({ name: 'left-pad-ish', version: '1.0.0', scripts: scripts(marks) }));
  await writeFile(path.join(plain, 'index.js'), 'module.exports = 1;\n');
  const plugin = await pluginFolder(path.join(base, 'shout'), (pkg) => ({ ...pkg, scripts: scripts(marks) }));
  const served = await registry([plain, plugin]);
  try {
    const refused = await oryx(['plugins', 'install', 'left-pad-ish']);
    assert.ok(served.requests.some((r) => r.startsWith('GET /left-pad-ish/-/')), `npm fetched it: ${served.requests.join(', ')}`);
    assert.equal(await marked(marks), [], 'a script of the refused package ran');
    assert.not.ok(existsSync(path.join(data, 'node_modules', 'left-pad-ish')), 'the refused package stayed installed');
    assert.is(refused.code, 1, refused.stdout);
    assert.match(refused.stderr, 'error ORYX_E_PLUGINS_NOT_A_PLUGIN: left-pad-ish is not an OryxOS plugin');
    const installed = await oryx(['plugins', 'install', 'oryx-plugin-shout@1.2.3']);
    assert.is(installed.code, 0, installed.stderr);
    assert.match(installed.stdout, 'installed oryx-plugin-shout@1.2.3');
    assert.equal(await marked(marks), [], 'a script of the registry plugin ran');
    assert.equal((await rows()).map((p) => [p.package, p.version, p.from]), [['oryx-plugin-shout', '1.2.3', 'installed']]);
  } finally {
    await served.close();
  }
});

test('an added plugin\'s oclif hooks never run — installed, enabled or not, and linked — while its command still does', async () => {
  const marks = path.join(base, 'marks');
  const folder = await pluginFolder(path.join(base, 'hooked'), (pkg) => ({
    ...pkg, oclif: { ...(pkg.oclif as object), hooks: { init: './hook.js', prerun: './hook.js', postrun: './hook.js' } },
  }));
  // The hook module leaves a marker when it is imported, and another when it is called.
  await writeFile(path.join(folder, 'hook.js'), `import { mkdirSync, writeFileSync } from 'node:fs';\nmkdirSync(${JSON.stringify(marks)}, { recursive: true });\n`
    + `writeFileSync(${JSON.stringify(path.join(marks, 'imported'))}, 'x');\nexport default async function (opts) { writeFileSync(${JSON.stringify(marks)} + '/called-' + opts.id, 'x'); }\n`);
  const r = await oryx(['plugins', 'install', folder]);
  assert.is(r.code, 0, r.stderr);
  assert.is((await oryx(['init'])).code, 0);
  assert.is((await oryx(['agents'])).code, 0);
  assert.is((await oryx(['version'])).code, 0);
  assert.equal(await marked(marks), [], 'a hook of a plugin that is not enabled ran');
  assert.match(r.stdout, 'its oclif hooks (init, prerun, postrun) never run');
  const configFile = path.join(project, 'oryx.config.ts');
  await writeFile(configFile, `import shout from 'oryx-plugin-shout';\n${(await readFile(configFile, 'utf8')).replace('plugins: [', 'plugins: [\n    shout(),')}`);
  assert.is((await json(['plugins'])).items.find((p: { package: string }) => p.package === 'oryx-plugin-shout').enabled, true);
  assert.is((await json(['shout', 'loud'])).shout, 'LOUD!', 'its command runs when asked for');
  assert.equal(await marked(marks), [], 'a hook of an enabled plugin ran');
  assert.is((await oryx(['plugins', 'uninstall', 'oryx-plugin-shout'])).code, 0);
  assert.is((await oryx(['plugins', 'link', folder, '--no-install'])).code, 0);
  assert.is((await oryx(['agents'])).code, 0);
  assert.equal(await marked(marks), [], 'a hook of a linked plugin ran');
});

test('two plugin folders of the same name never share a registry entry; installing one again replaces its own entry and snapshot only', async () => {
  const made = async (dir: string, name: string, version: string) => {
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name, version, type: 'module', exports: './index.js', oryx: { plugin: './index.js', kernel: '^1', permissions: [] }, oclif: {} }));
    await writeFile(path.join(dir, 'index.js'), `export default () => ({ name: ${JSON.stringify(name)}, version: ${JSON.stringify(version)}, kernel: '^1', setup() {} });\n`);
    return dir;
  };
  const alpha = await made(path.join(base, 'a', 'plugin'), 'oryx-plugin-alpha', '1.0.0');
  const beta = await made(path.join(base, 'b', 'plugin'), 'oryx-plugin-beta', '2.0.0');
  for (const dir of [alpha, beta]) { const r = await oryx(['plugins', 'install', dir]); assert.is(r.code, 0, r.stderr); }
  const listed = async () => (await rows()).map((p) => [p.package, p.version, p.root]);
  assert.equal(await listed(), [
    ['oryx-plugin-alpha', '1.0.0', path.join(data, 'node_modules', 'oryx-plugin-alpha')],
    ['oryx-plugin-beta', '2.0.0', path.join(data, 'node_modules', 'oryx-plugin-beta')],
  ]);
  const registry = async () => JSON.parse(await readFile(path.join(data, 'package.json'), 'utf8'));
  let entries = (await registry()).oclif.plugins as { name: string; url: string }[];
  assert.equal(entries.map((e) => e.name), ['oryx-plugin-alpha', 'oryx-plugin-beta']);
  assert.is.not(entries[0]!.url, entries[1]!.url);
  // What each entry installed is the package it names.
  for (const [name, spec] of Object.entries((await registry()).dependencies as Record<string, string>)) {
    assert.is(JSON.parse(await readFile(path.join(data, 'node_modules', name, 'package.json'), 'utf8')).name, name, spec);
  }
  await made(alpha, 'oryx-plugin-alpha', '1.1.0');
  assert.is((await oryx(['plugins', 'install', alpha])).code, 0);
  assert.equal((await listed()).map(([name, version]) => [name, version]), [['oryx-plugin-alpha', '1.1.0'], ['oryx-plugin-beta', '2.0.0']]);
  entries = (await registry()).oclif.plugins;
  assert.equal(entries.map((e) => e.name), ['oryx-plugin-beta', 'oryx-plugin-alpha'], 'one entry per plugin');
  const snapshots = (await readdir(path.join(data, 'snapshots'))).sort();
  assert.is(snapshots.length, 2, snapshots.join());
  assert.ok(snapshots.some((f) => f.startsWith('oryx-plugin-alpha-1.1.0-')) && snapshots.some((f) => f.startsWith('oryx-plugin-beta-2.0.0-')), snapshots.join());
});

test('a plugin with commands but no oclif.manifest.json (oclif would import its commands at every start) is refused, installed nothing; a git repository is refused', async () => {
  const folder = await pluginFolder(path.join(base, 'no-manifest'));
  await rm(path.join(folder, 'oclif.manifest.json'));
  const r = await oryx(['plugins', 'install', folder]);
  assert.is(r.code, 1, r.stdout);
  assert.match(r.stderr, 'error ORYX_E_PLUGINS_NO_MANIFEST: oryx-plugin-shout@1.2.3 brings commands but no oclif.manifest.json');
  assert.not.ok(existsSync(path.join(data, 'node_modules', 'oryx-plugin-shout')));
  const git = await oryx(['plugins', 'install', 'github:someone/oryx-plugin-x']);
  assert.is(git.code, 1);
  assert.match(git.stderr, 'error ORYX_E_PLUGINS_SPEC: github:someone/oryx-plugin-x is not a folder, a tarball or a registry package');
  assert.match(git.stderr, 'clone it, build it yourself');
});

test('install arguments: folders, tarballs and URLs are what they look like; registry names stay names; git specs are refused', () => {
  assert.equal(installSource('./shout', '/w'), { kind: 'folder', path: '/w/shout' });
  assert.equal(installSource(fixture, '/w'), { kind: 'folder', path: fixture });
  assert.equal(installSource('./x-1.0.0.tgz', '/w'), { kind: 'tarball', path: '/w/x-1.0.0.tgz' }, 'a tarball path that does not exist is left to npm to say so');
  assert.equal(installSource('x-1.0.0.tar.gz', '/w'), { kind: 'tarball', path: '/w/x-1.0.0.tar.gz' });
  assert.equal(installSource(path.join(fixture, 'package.json'), '/w'), { kind: 'tarball', path: path.join(fixture, 'package.json') });
  assert.equal(installSource('https://example.com/x-1.0.0.tgz'), { kind: 'url', spec: 'https://example.com/x-1.0.0.tgz' });
  for (const spec of ['oryx-plugin-shout', 'oryx-plugin-shout@1.2.3', '@scope/plugin@latest', '@scope/plugin']) assert.equal(installSource(spec, '/w'), { kind: 'registry', spec });
  for (const spec of ['github:user/repo', 'user/repo', 'user/repo#main', 'git+https://example.com/r.git', 'git://example.com/r', 'https://example.com/r.git', 'gitlab:u/r', 'ssh:x']) {
    assert.throws(() => installSource(spec, '/w'), (e: { code: string }) => e.code === 'ORYX_E_PLUGINS_SPEC', spec);
  }
});

test('the tarball reader: every file npm packs, by its path in the package, long names included', async () => {
  const dir = path.join(base, 'long');
  const deep = `${'a'.repeat(60)}/${'b'.repeat(60)}/${'c'.repeat(30)}.js`;
  await mkdir(path.dirname(path.join(dir, deep)), { recursive: true });
  await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name: 'long-names', version: '1.0.0' }));
  await writeFile(path.join(dir, deep), 'deep');
  await writeFile(path.join(dir, 'index.js'), 'top');
  const out = execFileSync('npm', ['pack', dir, '--ignore-scripts', '--json', '--pack-destination', base], { encoding: 'utf8' });
  const [report] = JSON.parse(out) as { filename: string; files: { path: string }[] }[];
  const files = readTarball(await readFile(path.join(base, report!.filename)));
  assert.equal([...files.keys()].sort(), report!.files.map((f) => f.path).sort());
  assert.is(files.get(deep)!.toString(), 'deep');
  assert.is(JSON.parse(files.get('package.json')!.toString()).name, 'long-names');
  assert.throws(() => readTarball(gzipSync(Buffer.from('not a tar archive at all'.repeat(40)))));
});

test.run();
