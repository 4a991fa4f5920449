// OryxOS installed like any CLI: the repository packed (`npm pack`, every package bundled),
// installed globally into a temp prefix offline (`npm install -g --prefix`), and used from an
// empty folder with no node_modules above it — `oryx init`, `oryx run` against a loopback
// OpenAI-compatible server, `oryx sessions`, `oryx --version`, `/api/info` of `oryx web`. Build
// first (`npm test` does).
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { completion } from '../plugins/openai/test/helpers/openai-server.ts';
import { openaiServer, type OpenAIServer } from '../plugins/openai/test/helpers/openai-server.ts';

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
  base = await mkdtemp(path.join(tmpdir(), 'oryx-install-'));
  for (let dir = base; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    assert.not.ok(existsSync(path.join(dir, 'node_modules')), `${dir} has a node_modules: the test needs a folder with none above it`);
  }
  // --ignore-scripts: npm test has built everything (prepack only checks that).
  await run('npm', ['pack', '--ignore-scripts', '--pack-destination', base], { cwd: repo, maxBuffer: 64 << 20 });
  const tarball = (await readdir(base)).find((f) => f.endsWith('.tgz'))!;
  assert.match(tarball, /^oryxos-cli-\d+\.\d+\.\d+\.tgz$/);
  prefix = path.join(base, 'prefix');
  // Offline: everything the CLI needs is in the tarball.
  await run('npm', ['install', '-g', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', path.join(base, tarball)], { cwd: base, maxBuffer: 64 << 20 });
  project = path.join(base, 'project');
  await mkdir(project);
  model = await openaiServer([
    { json: completion({ toolCalls: [{ id: 'c1', name: 'list_dir', args: { path: '.' } }] }) },
    (body) => ({ json: completion({ content: `I see: ${body.messages.at(-1).content.includes('oryx.config.ts') ? 'oryx.config.ts' : 'nothing'}` }) }),
  ]);
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

test.run();
