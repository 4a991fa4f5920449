// OryxOS installed like any CLI: the repository packed (`npm pack`, every package bundled),
// installed globally into a temp prefix offline (`npm install -g --prefix`), and used from an
// empty folder with no node_modules above it — `oryx init`, `oryx run` against a loopback
// OpenAI-compatible server, `oryx sessions`, `oryx doctor`, `oryx --version`, `/api/info` of `oryx web`; then
// a third-party plugin from outside the repository (test/fixtures/oryx-plugin-shout, copied to
// the temp folder) installed, enabled, its command and its tool used, audited, uninstalled and
// linked; a kernel-range mismatch and a non-plugin package refused; and a plugin written by
// `oryx plugins new` passing its own test and linked. Build first (`npm test` does).
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, readdir, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempProject } from '@oryxos/kernel/testing';
import { completion, openaiServer, type OpenAIServer } from '../plugins/openai/test/helpers/openai-server.ts';

const run = promisify(execFile);
const repo = path.resolve(import.meta.dirname, '..');
let base = '';
let prefix = '';
let project = '';
let env: Record<string, string> = {};
let model: OpenAIServer;

/** The installed `oryx`, run to its end in `cwd` (default: the project). */
async function oryx(args: string[], cwd = project): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(prefix, 'bin', 'oryx'), args, { cwd, env, timeout: 60_000 });
    let stdout = '', stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
    child.stdin.end();
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

test.before(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), 'oryx-install-')));
  for (let dir = base; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    assert.not.ok(existsSync(path.join(dir, 'node_modules')), `${dir} has a node_modules: the test needs a folder with none above it`);
  }
  // npm test has built everything; prepack checks that and bundles every dependency (scripts/pack.mjs).
  await run('npm', ['pack', '--pack-destination', base], { cwd: repo, maxBuffer: 64 << 20 });
  const tarball = (await readdir(base)).find((f) => f.endsWith('.tgz'))!;
  assert.match(tarball, /^oryxos-cli-\d+\.\d+\.\d+\.tgz$/);
  prefix = path.join(base, 'prefix');
  // Offline: everything the CLI needs is in the tarball.
  await run('npm', ['install', '-g', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', path.join(base, tarball)], { cwd: base, maxBuffer: 64 << 20 });
  project = path.join(base, 'project');
  await mkdir(project);
  // The model: "What is here?" lists the folder, "Shout X" calls the shout tool; a tool result gets an answer.
  model = await openaiServer(Array.from({ length: 20 }, () => (body: { messages: { role: string; content: string }[] }, n: number) => {
    const last = body.messages.at(-1)!;
    if (last.role === 'tool') return { json: completion({ content: last.content.includes('oryx.config.ts') ? 'I see: oryx.config.ts' : `The tool said ${last.content}` }) };
    const shout = /^Shout (.*)$/.exec(last.content);
    return { json: completion({ toolCalls: [shout ? { id: `c${n}`, name: 'shout', args: { text: shout[1]! } } : { id: `c${n}`, name: 'list_dir', args: { path: '.' } }] }) };
  }));
  env = {
    PATH: `${path.join(prefix, 'bin')}:${process.env.PATH}`, HOME: path.join(base, 'home'), NO_COLOR: '1',
    XDG_DATA_HOME: path.join(base, 'data'), XDG_CONFIG_HOME: path.join(base, 'config'), XDG_CACHE_HOME: path.join(base, 'cache'),
    OPENAI_API_KEY: 'sk-install-test', OPENAI_BASE_URL: model.url,
  };
});

test.after(async () => {
  await model?.close();
  await rm(base, { recursive: true, force: true });
});

test('the install holds one @oclif/core and every OryxOS package, outside any checkout', async () => {
  const found: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const e of await readdir(dir, { withFileTypes: true })) {
      if (!e.isDirectory()) continue;
      const p = path.join(dir, e.name);
      if (p.endsWith(path.join('@oclif', 'core')) && existsSync(path.join(p, 'package.json'))) found.push(p);
      await walk(p);
    }
  };
  await walk(path.join(prefix, 'lib', 'node_modules'));
  assert.equal(found.map((p) => path.relative(prefix, p)), [path.join('lib', 'node_modules', '@oryxos', 'cli', 'node_modules', '@oclif', 'core')]);
  const version = await oryx(['--version'], base);
  assert.is(version.code, 0, version.stderr);
  const pkg = JSON.parse(await readFile(path.join(repo, 'package.json'), 'utf8'));
  assert.match(version.stdout, new RegExp(`^oryx ${pkg.version} \\(@oryxos/cli\\), kernel \\d+\\.\\d+\\.\\d+`));
  for (const name of ['@oryxos/kernel', '@oryxos/plugin-openai', '@oryxos/plugin-sqlite', '@oryxos/plugin-web', '@oryxos/provider-kit']) {
    assert.match(version.stdout, new RegExp(`^${name}\\s+\\d+\\.\\d+\\.\\d+\\s+bundled$`, 'm'));
  }
});

test('in an empty folder: oryx init, then oryx run against a loopback model, then oryx sessions', async () => {
  const init = await oryx(['init']);
  assert.is(init.code, 0, init.stderr);
  assert.match(init.stdout, 'Provider: OpenAI-compatible');
  assert.match(init.stdout, /Next: oryx run "hello"/);
  assert.not.ok(existsSync(path.join(project, 'node_modules')), 'init installs nothing into the project');
  // The config imports @oryxos/* packages the project does not have: they come from the installation.
  const r = await oryx(['run', 'What is here?', '--json']);
  assert.is(r.code, 0, r.stderr);
  const result = JSON.parse(r.stdout);
  assert.equal([result.stopReason, result.answer, result.iterations], ['final', 'I see: oryx.config.ts', 2]);
  assert.is(model.requests[0]!.headers.authorization, 'Bearer sk-install-test');
  const sessions = await oryx(['sessions', '--json']);
  assert.is(sessions.code, 0, sessions.stderr);
  assert.equal(JSON.parse(sessions.stdout).items.map((s: { id: string }) => s.id), [result.sessionId]);
  // The doctor of the installed CLI: the same config, the loopback model, the database the run created.
  const doctor = await oryx(['doctor', '--json']);
  const checks = JSON.parse(doctor.stdout).items as { check: string; status: string; detail: string }[];
  const status = Object.fromEntries(checks.map((c) => [c.check, c.status]));
  for (const check of ['node', 'config', 'plugins', 'database', 'provider openai', 'sandbox']) assert.is(status[check], 'ok', JSON.stringify(checks));
  assert.match(checks.find((c) => c.check === 'database')!.detail, 'migrations current');
  // The web port of the generated config (8787) may be taken on this machine: the exit status follows the checks.
  assert.is(doctor.code, checks.some((c) => c.status === 'fail') ? 1 : 0, doctor.stderr);
});

test('an error ends with its code and hint, without oclif\'s EEXIT noise', async () => {
  const r = await oryx(['run', '-s', 'no-such-session', 'hi']);
  assert.is(r.code, 1);
  assert.match(r.stderr, /^error ORYX_E_SESSION_NOT_FOUND: /m);
  assert.match(r.stderr, /^ {2}hint: /m);
  assert.not.match(r.stderr, 'EEXIT');
});

test('/api/info of oryx web tells the same version story as oryx --version', async () => {
  const versions = JSON.parse((await oryx(['version', '--json'])).stdout);
  const web = spawn(path.join(prefix, 'bin', 'oryx'), ['web', '--port', '0'], { cwd: project, env: { ...env, ORYX_WEB_TOKEN: 'install-test-token-0123456789' } });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      web.stdout.setEncoding('utf8').on('data', (d) => { out += d; const m = /listening on (http:\/\/\S+)/.exec(out); if (m) resolve(m[1]!); });
      web.on('close', (code) => reject(new Error(`oryx web exited ${code}: ${out}`)));
    });
    const info = await (await fetch(`${url}/api/info`, { headers: { authorization: 'Bearer install-test-token-0123456789' } })).json() as { version: string; host: unknown };
    assert.is(info.version, versions.kernel);
    assert.equal(info.host, {
      name: '@oryxos/cli', version: versions.cli,
      packages: Object.fromEntries(versions.packages.map((p: { name: string; version: string }) => [p.name, p.version])),
    });
  } finally {
    web.kill('SIGTERM');
    await new Promise((resolve) => web.once('close', resolve));
  }
});

const json = async (args: string[], cwd?: string) => {
  const r = await oryx([...args, '--json'], cwd);
  assert.is(r.code, 0, `${args.join(' ')}: ${r.stderr}${r.stdout}`);
  return JSON.parse(r.stdout);
};
const pluginRow = async (name: string) => (await json(['plugins'])).items.find((p: { package: string }) => p.package === name);

test('a package that is no plugin is refused naming what is missing, and nothing is installed (colon form too)', async () => {
  await mkdir(path.join(base, 'not-a-plugin'));
  await writeFile(path.join(base, 'not-a-plugin', 'package.json'), JSON.stringify({ name: 'left-pad-ish', version: '1.0.0' }));
  const r = await oryx(['plugins:install', './not-a-plugin'], base);
  assert.is(r.code, 1, r.stdout);
  assert.match(r.stderr, 'error ORYX_E_PLUGINS_NOT_A_PLUGIN: left-pad-ish is not an OryxOS plugin: its package.json has no "oryx" block');
  assert.match(r.stderr, 'and no "oclif" block (commands)');
  assert.is(await pluginRow('left-pad-ish'), undefined);
});

test('a plugin built for another kernel is refused at install, naming both versions', async () => {
  await cp(path.join(repo, 'test', 'fixtures', 'oryx-plugin-shout'), path.join(base, 'shout-for-kernel-2'), { recursive: true });
  const pkgFile = path.join(base, 'shout-for-kernel-2', 'package.json');
  const pkg = JSON.parse(await readFile(pkgFile, 'utf8'));
  await writeFile(pkgFile, JSON.stringify({ ...pkg, oryx: { ...pkg.oryx, kernel: '^2' } }));
  const kernel = (await json(['version'])).kernel;
  const r = await oryx(['plugins', 'install', path.join(base, 'shout-for-kernel-2')], base);
  assert.is(r.code, 1, r.stdout);
  assert.match(r.stderr, `error ORYX_E_PLUGIN_KERNEL_MISMATCH: oryx-plugin-shout@1.2.3 needs kernel ^2, but this OryxOS has kernel ${kernel}`);
  assert.is(await pluginRow('oryx-plugin-shout'), undefined);
});

test('a third-party plugin: installed (not enabled), enabled in the config, its command and its tool used, audited', async () => {
  await cp(path.join(repo, 'test', 'fixtures', 'oryx-plugin-shout'), path.join(base, 'shout'), { recursive: true });
  const install = await oryx(['plugins', 'install', './shout'], base);
  assert.is(install.code, 0, install.stderr);
  assert.match(install.stdout, 'installed oryx-plugin-shout@1.2.3: an OryxOS plugin for kernel ^1 and commands');
  assert.match(install.stdout, 'not enabled yet');
  assert.match(install.stdout, 'its npm scripts did not run');
  assert.equal(await pluginRow('oryx-plugin-shout'), {
    package: 'oryx-plugin-shout', version: '1.2.3', kernel: '^1', kernelOk: true, enabled: false, from: 'installed', declaredPermissions: [], commands: true,
    root: path.join(base, 'data', 'oryxos', 'node_modules', 'oryx-plugin-shout'), // a folder is installed as a copy
  });
  assert.is((await pluginRow('@oryxos/plugin-sqlite')).enabled, true, 'bundled plugins the config enables are listed as enabled');

  const configFile = path.join(project, 'oryx.config.ts');
  const config = await readFile(configFile, 'utf8');
  await writeFile(configFile, `import shout from 'oryx-plugin-shout';\n${config.replace('plugins: [', 'plugins: [\n    shout(),')}`);
  const agentFile = path.join(project, '.oryxos', 'agents', 'assistant', 'AGENT.md');
  await writeFile(agentFile, (await readFile(agentFile, 'utf8')).replace('tools: [', 'tools: [shout, '));
  assert.is((await pluginRow('oryx-plugin-shout')).enabled, true);

  const shouted = await json(['shout', 'hello']);
  assert.equal(shouted, { shout: 'HELLO!', kernel: (await json(['version'])).kernel, toolRegistered: true, oneOclif: true });
  const run = await json(['run', 'Shout hi there']);
  assert.is(run.answer, 'The tool said HI THERE!');
  const audited = await json(['audit', 'tools', '--session', run.sessionId]);
  const rows = (Array.isArray(audited) ? audited : audited.items) as { tool: string; plugin?: string; status: string }[];
  assert.ok(rows.some((row) => row.tool === 'shout' && row.status === 'ok'), JSON.stringify(rows));
});

test('an installed plugin whose kernel range no longer matches is refused at load, naming both versions', async () => {
  // The installed copy (editing the folder it came from changes nothing: it is a copy).
  const pkgFile = path.join(base, 'data', 'oryxos', 'node_modules', 'oryx-plugin-shout', 'package.json');
  const original = await readFile(pkgFile, 'utf8');
  await writeFile(pkgFile, original.replace('"kernel": "^1"', '"kernel": "^2"'));
  try {
    const kernel = (await json(['version'])).kernel;
    const r = await oryx(['run', 'Shout no']);
    assert.is(r.code, 1, r.stdout);
    assert.match(r.stderr, `error ORYX_E_PLUGIN_KERNEL_MISMATCH: Plugin "shout"@1.2.3 (oryx-plugin-shout) needs kernel ^2, but this is kernel ${kernel}`);
  } finally {
    await writeFile(pkgFile, original);
  }
});

test('uninstalled, then linked from its folder: the command follows, and uninstall unlinks it', async () => {
  const removed = await oryx(['plugins', 'uninstall', 'oryx-plugin-shout']);
  assert.is(removed.code, 0, removed.stderr);
  assert.is(await pluginRow('oryx-plugin-shout'), undefined);
  assert.not.equal((await oryx(['shout', 'gone'])).code, 0);
  const linked = await oryx(['plugins', 'link', path.join(base, 'shout'), '--no-install']);
  assert.is(linked.code, 0, linked.stderr);
  assert.match(linked.stdout, `linked oryx-plugin-shout@1.2.3 from ${path.join(base, 'shout')}`);
  assert.is((await pluginRow('oryx-plugin-shout')).from, 'linked');
  assert.is((await json(['shout', 'again'])).shout, 'AGAIN!');
  assert.is((await oryx(['plugins', 'uninstall', 'oryx-plugin-shout'])).code, 0);
  assert.is(await pluginRow('oryx-plugin-shout'), undefined);
});

test('oryx plugins new writes a package that passes its own test, and links into the installed oryx', async () => {
  // Inside the repository, so its test finds tsx, uvu and the kernel's test helpers without an install.
  const dir = await tempProject('plugins-new-');
  try {
    const made = await json(['plugins', 'new', 'word-count', '--kind', 'tool', '--dir', dir], base);
    const pkgDir = path.join(dir, 'oryx-plugin-word-count');
    assert.is(made.dir, pkgDir);
    await run('npm', ['test'], { cwd: pkgDir });
    await run(process.execPath, [path.join(repo, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], { cwd: pkgDir });
    const linked = await oryx(['plugins', 'link', pkgDir, '--no-install']);
    assert.is(linked.code, 0, linked.stderr);
    const configFile = path.join(project, 'oryx.config.ts');
    const config = await readFile(configFile, 'utf8');
    await writeFile(configFile, `import wordCount from 'oryx-plugin-word-count';\n${config.replace(/^import shout.*\n/m, '').replace('shout(),', 'wordCount(),')}`);
    const tools = await json(['tools']);
    const list = (Array.isArray(tools) ? tools : tools.tools ?? tools.items) as { name: string; plugin: string }[];
    assert.ok(list.some((t) => t.name === 'word_count' && t.plugin === 'word-count'), JSON.stringify(list));
  } finally {
    await oryx(['plugins', 'uninstall', 'oryx-plugin-word-count']);
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
