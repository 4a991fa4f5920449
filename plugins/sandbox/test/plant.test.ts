// Planting code for the next start, from inside confinement: `git` is allowed (any arguments),
// so a model can run `git -c "alias.x=!node plant.mjs" x …` and the child, confined to the
// project, tries to create every control file that OryxOS or a tool you run later would act on,
// in a project that has no node_modules, no package.json and no .git of its own. Real
// bubblewrap, real git, real npm, real files; each attempt prints how it went
// (test/fixtures/plant.mjs).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { prepareExec } from '@oryxos/plugin-kit';
import { scripted, testKernel, type TestKernel } from '@oryxos/kernel/testing';
import { loadConfig } from '@oryxos/command-kit';
import audit from '@oryxos/plugin-audit';
import sqlite from '@oryxos/plugin-sqlite';
import tools from '@oryxos/plugin-tools';
import sandbox, { type SandboxOptions } from '../src/index.ts';
import { afterToolProbe } from './fixture.ts';

const run = promisify(execFile);
const PLANT = path.join(import.meta.dirname, 'fixtures', 'plant.mjs');
const GIT_USER = ['-c', 'user.name=u', '-c', 'user.email=u@example.com'];
/** The system's npm (under `npm test`, PATH starts with this checkout's node_modules/.bin, whose npm needs the whole checkout). */
const NPM = (process.env.PATH ?? '').split(path.delimiter).filter((d) => d && !d.includes('node_modules')).map((d) => path.join(d, 'npm')).find((f) => existsSync(f)) ?? 'npm';

let base: string;
let root: string;
let mark: string;

/**
 * base/root: oryx.config.mjs, plant.mjs, .oryxos/, sub/ (a nested git repository with one
 * commit), nohooks/ (a repository whose hooks folder was removed), pkg/ (package.json whose
 * test script writes out.txt). No node_modules, package.json, .npmrc or .git at the root.
 */
test.before(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'oryx-plant-'));
  root = path.join(base, 'root');
  mark = path.join(base, 'pwned');
  await mkdir(path.join(root, 'pkg'), { recursive: true });
  await writeFile(path.join(root, 'oryx.config.mjs'), "export default { plugins: [], defaultAgent: 'assistant' };\n");
  await copyFile(PLANT, path.join(root, 'plant.mjs'));
  await writeFile(path.join(root, 'pkg', 'package.json'), JSON.stringify({ name: 'pkg', private: true, scripts: { test: "node -e \"require('fs').writeFileSync('out.txt', 'tests ran')\"" } }));
  for (const repo of ['sub', 'nohooks']) {
    await mkdir(path.join(root, repo));
    await run('git', ['init', '-q'], { cwd: path.join(root, repo) });
    await writeFile(path.join(root, repo, 'a.txt'), 'one\n');
    await run('git', [...GIT_USER, 'add', 'a.txt'], { cwd: path.join(root, repo) });
    await run('git', [...GIT_USER, 'commit', '-qm', 'first'], { cwd: path.join(root, repo) });
  }
  await rm(path.join(root, 'nohooks', '.git', 'hooks'), { recursive: true });
});
test.after(async () => { await rm(base, { recursive: true, force: true }); });

const policy = (extra: Partial<SandboxOptions['files']> = {}): SandboxOptions => ({
  files: { read: ['.'], write: ['.'], ...extra },
  exec: { allow: ['git', { command: NPM, args: ['test'] }], env: ['ORYX_PLANT_MARK'] },
});

/** `git -c alias.x=!node plant.mjs x <attempts>`: the plant, run through an allowed git. */
const plant = (...attempts: string[]) => ({ name: 'shell', args: { command: 'git', args: ['-c', 'alias.x=!node plant.mjs', 'x', ...attempts] } });

async function turn(calls: { name: string; args: Record<string, unknown> }[], options = policy()): Promise<{ out: { status: string; content: string }[]; t: TestKernel }> {
  const seen: Parameters<typeof afterToolProbe>[0] = [];
  const llm = scripted([{ toolCalls: calls.map((c, i) => ({ id: `c${i + 1}`, ...c })) }, { text: 'done' }]);
  const t = await testKernel({
    dir: root, configFile: path.join(root, 'oryx.config.mjs'), agents: { assistant: { tools: ['*'] } },
    plugins: [llm, sqlite(), audit(), sandbox(options), tools(), afterToolProbe(seen)],
  });
  process.env.ORYX_PLANT_MARK = mark;
  try {
    await t.service.process({ agent: 'assistant', message: 'go' });
  } finally {
    delete process.env.ORYX_PLANT_MARK;
  }
  return { out: seen.map((s) => ({ status: s.status, content: s.result.content })), t };
}

/** `attempt: result` lines of the plant's output. */
const results = (content: string) => Object.fromEntries([...content.matchAll(/^(\S+): (\S+)$/gm)].map((m) => [m[1]!, m[2]!]));

/** What the next start does: the config is found and run (it must be the real one), node resolves the kernel. */
async function nextStart(): Promise<void> {
  const config = await loadConfig({ cwd: root });
  assert.is(config?.defaultAgent, 'assistant');
  assert.not.ok(existsSync(mark), 'planted code ran');
}

const TOP = ['.oryxos', 'nohooks', 'oryx.config.mjs', 'pkg', 'plant.mjs', 'sub'];

test('what the next start imports cannot be created at the project folder: node_modules, package.json, .npmrc, .git, another config name', async () => {
  const attempts = [
    'file:node_modules/.cache/oryxos-config/config-0123456789abcdef.mjs',
    'file:node_modules/@oryxos/kernel/package.json',
    'file:package.json',
    'file:.npmrc',
    'file:.git/config',
    'file:oryx.config.ts',
    'file:oryx.config.js',
    'rm:node_modules',
    'mv:plant.mjs:package.json',
  ];
  const { out, t } = await turn([plant(...attempts)]);
  await t.close({ keep: true });
  assert.is(out[0]!.status, 'ok', out[0]!.content);
  const got = results(out[0]!.content);
  for (const a of attempts) {
    assert.ok(got[a], `no result for ${a}: ${out[0]!.content}`);
    assert.is.not(got[a], 'ok', `${a} succeeded inside confinement`);
    assert.match(got[a]!, /^(EROFS|EISDIR|EEXIST|EBUSY|ENOTDIR|ENOENT)$/, `${a}: ${got[a]}`);
  }
  // The placeholders that made it so are gone once the program ended; nothing else is left.
  assert.equal((await readdir(root)).sort(), TOP);
  await nextStart();
});

test('deeper down, a control file a confined program creates is moved into quarantine when it ends, and audited', async () => {
  const attempts = ['file:sub/oryx.config.ts', 'file:newdir/node_modules/evil/index.js', 'file:docs/package.json', 'file:docs/notes.md', 'mkdir:deep/er/.git/hooks'];
  const { out, t } = await turn([plant(...attempts)]);
  try {
    const got = results(out[0]!.content);
    for (const a of attempts) assert.is(got[a], 'ok', `${a}: ${out[0]!.content}`);
    for (const gone of ['sub/oryx.config.ts', 'newdir/node_modules', 'docs/package.json', 'deep/er/.git']) assert.not.ok(existsSync(path.join(root, gone)), `${gone} is still there`);
    assert.is(await readFile(path.join(root, 'docs', 'notes.md'), 'utf8').then((s) => s.length > 0), true, 'an ordinary file stays');
    const quarantine = path.join(root, '.oryxos', 'sandbox', 'quarantine');
    const kept = (await readdir(quarantine, { recursive: true })).map(String);
    for (const moved of ['sub/oryx.config.ts', 'newdir/node_modules/evil/index.js', 'docs/package.json']) {
      assert.ok(kept.some((k) => k.endsWith(moved)), `${moved} not in quarantine: ${kept.join(', ')}`);
    }
    const rows = await t.kernel.service('database').query<{ decision: string; target: string; reason: string; origin: string }>(
      "SELECT decision, target, reason, origin FROM sandbox_events WHERE origin = 'confinement' ORDER BY id");
    assert.equal(rows.map((r) => path.relative(root, r.target)).sort(), ['deep/er/.git', 'docs/package.json', 'newdir/node_modules', 'sub/oryx.config.ts']);
    for (const r of rows) {
      assert.is(r.decision, 'deny');
      assert.match(r.reason, /is a control file that appeared in a write root while a confined program ran \(tool shell\); confined programs cannot create control files: moved to \S+\/\.oryxos\/sandbox\/quarantine\//);
    }
    assert.ok(t.warnings.some((w) => /sub\/oryx\.config\.ts is a control file that appeared/.test(w)), t.warnings.join('\n'));
  } finally {
    await t.close({ keep: true });
    await rm(path.join(root, 'docs'), { recursive: true, force: true });
    for (const d of ['newdir', 'deep']) await rm(path.join(root, d), { recursive: true, force: true });
  }
  await nextStart();
});

test("a nested repository's hooks and config are read-only, a repository without hooks gets an empty read-only hooks folder, a git folder cannot be moved", async () => {
  const config = await readFile(path.join(root, 'sub', '.git', 'config'), 'utf8');
  const hooks = (await readdir(path.join(root, 'sub', '.git', 'hooks'))).sort();
  const attempts = ['file:sub/.git/hooks/pre-commit', 'append:sub/.git/config', 'file:nohooks/.git/hooks/pre-commit', 'mv:sub/.git:sub/gitdir', 'rm:sub/.git/hooks', 'file:sub/.git/info/attributes'];
  const { out, t } = await turn([plant(...attempts, 'file:sub/.git/commondir')]);
  await t.close({ keep: true });
  const got = results(out[0]!.content);
  for (const a of attempts) assert.match(got[a] ?? 'missing', /^(EROFS|EBUSY|EEXIST|ENOENT)$/, `${a}: ${out[0]!.content}`);
  assert.is(got['file:sub/.git/commondir'], 'ok', 'commondir cannot be made read-only while absent (a placeholder would break git)');
  assert.not.ok(existsSync(path.join(root, 'sub', '.git', 'commondir')), 'but it does not survive the program');
  assert.is(await readFile(path.join(root, 'sub', '.git', 'config'), 'utf8'), config);
  assert.equal((await readdir(path.join(root, 'sub', '.git', 'hooks'))).sort(), hooks);
  assert.equal(await readdir(path.join(root, 'nohooks', '.git', 'hooks')), [], 'the hooks folder made for nohooks stays empty');
  assert.ok(existsSync(path.join(root, 'sub', '.git', 'HEAD')));
});

test('what a project really does still works: git commit in a write root (hooks untouched), npm test, new files anywhere', async () => {
  await writeFile(path.join(root, 'sub', 'a.txt'), 'two\n');
  const { out, t } = await turn([
    { name: 'shell', args: { command: 'git', args: [...GIT_USER, 'commit', '-q', '-am', 'from inside confinement'], cwd: 'sub' } },
    { name: 'shell', args: { command: NPM, args: ['test'], cwd: 'pkg' } },
    plant('file:made-at-the-root.txt', 'file:sub/new/file.txt'),
  ]);
  await t.close({ keep: true });
  for (const o of out) assert.is(o.status, 'ok', o.content);
  const log = await run('git', ['log', '--format=%s'], { cwd: path.join(root, 'sub') });
  assert.is(log.stdout, 'from inside confinement\nfirst\n');
  assert.is(await readFile(path.join(root, 'pkg', 'out.txt'), 'utf8'), 'tests ran');
  assert.ok(existsSync(path.join(root, 'made-at-the-root.txt')));
  assert.ok(existsSync(path.join(root, 'sub', 'new', 'file.txt')));
  for (const f of ['made-at-the-root.txt', 'sub/new', 'pkg/out.txt']) await rm(path.join(root, f), { recursive: true });
  await run('git', [...GIT_USER, 'status', '--porcelain'], { cwd: path.join(root, 'sub') });
});

test('a control file you make while no confined program runs is yours: it stays, and is read-only to the next program', async () => {
  const t = await testKernel({ dir: root, configFile: path.join(root, 'oryx.config.mjs'), plugins: [sandbox(policy())], agents: { assistant: { tools: [] } } });
  const once = async (args: string[]) => {
    const launch = await prepareExec(t.kernel, { command: 'git', args: ['-c', 'alias.x=!node plant.mjs', 'x', ...args] });
    try {
      return (await run(launch.file, launch.args, { cwd: launch.cwd, env: launch.env })).stdout;
    } finally {
      await launch.done();
    }
  };
  try {
    await once(['file:scratch.txt']);
    await new Promise((r) => setTimeout(r, 300));
    await mkdir(path.join(root, 'mine'), { recursive: true });
    await writeFile(path.join(root, 'mine', 'package.json'), '{ "name": "mine" }\n');
    await new Promise((r) => setTimeout(r, 300));
    assert.match(await once(['append:mine/package.json']), /append:mine\/package\.json: EROFS/);
    assert.is(await readFile(path.join(root, 'mine', 'package.json'), 'utf8'), '{ "name": "mine" }\n', 'not quarantined, not changed');
  } finally {
    await t.close({ keep: true });
    await rm(path.join(root, 'mine'), { recursive: true, force: true });
    await rm(path.join(root, 'scratch.txt'), { force: true });
  }
});

test('a node_modules that is a symbolic link: what it points to is read-only, and a folder put in its place is quarantined', async () => {
  await mkdir(path.join(root, 'store', 'nm'), { recursive: true });
  await symlink('store/nm', path.join(root, 'node_modules'));
  try {
    const { out, t } = await turn([plant('file:node_modules/@oryxos/kernel/index.js', 'file:store/nm/@oryxos/kernel/index.js')]);
    await t.close({ keep: true });
    const got = results(out[0]!.content);
    assert.is(got['file:node_modules/@oryxos/kernel/index.js'], 'ENOENT', out[0]!.content);
    assert.is(got['file:store/nm/@oryxos/kernel/index.js'], 'ENOENT');
    assert.equal(await readdir(path.join(root, 'store', 'nm')), []);
    const swapped = await turn([plant('rm:node_modules', 'file:node_modules/@oryxos/kernel/index.js')]);
    await swapped.t.close({ keep: true });
    assert.is(results(swapped.out[0]!.content)['rm:node_modules'], 'ok', 'the link itself cannot be made read-only');
    assert.not.ok(existsSync(path.join(root, 'node_modules', '@oryxos')), 'the folder put in its place did not survive the program');
  } finally {
    await rm(path.join(root, 'node_modules'), { recursive: true, force: true });
    await rm(path.join(root, 'store'), { recursive: true, force: true });
  }
  await nextStart();
});

test('an opted-in control folder is created and kept: no placeholder, no quarantine', async () => {
  const { out, t } = await turn([plant('file:node_modules/local/index.js')], policy({ allowControlWrites: ['node_modules/**'] }));
  await t.close({ keep: true });
  assert.is(results(out[0]!.content)['file:node_modules/local/index.js'], 'ok', out[0]!.content);
  assert.ok(existsSync(path.join(root, 'node_modules', 'local', 'index.js')));
  await rm(path.join(root, 'node_modules'), { recursive: true });
});

test('a placeholder stays while any program that relies on it runs, however the launches overlap', async () => {
  const t = await testKernel({ dir: root, configFile: path.join(root, 'oryx.config.mjs'), plugins: [sandbox(policy())], agents: { assistant: { tools: [] } } });
  try {
    const long = await prepareExec(t.kernel, { command: 'git', args: ['-c', 'alias.x=!node plant.mjs', 'x', 'wait:go', 'file:node_modules/late.js'] });
    const child = run(long.file, long.args, { cwd: long.cwd, env: long.env });
    const short = await prepareExec(t.kernel, { command: 'git', args: ['--version'] });
    await run(short.file, short.args, { cwd: short.cwd, env: short.env });
    await short.done();
    assert.ok(existsSync(path.join(root, 'node_modules')), 'the long launch still holds the placeholder');
    await writeFile(path.join(root, 'go'), '');
    assert.match((await child).stdout, /file:node_modules\/late\.js: (EROFS|ENOENT)/);
    await long.done();
  } finally {
    await rm(path.join(root, 'go'), { force: true });
    await t.close({ keep: true });
  }
  assert.not.ok(existsSync(path.join(root, 'node_modules')), 'gone once no program needs it (at the latest when the sandbox closes)');
});

test.run();
