// Third-party plugins in the checkout's CLI (bin/run.js; npm test builds first): what
// `oryx plugins install` and `link` accept and refuse, and `oryx plugins` listing, linking,
// enabling and unlinking the fixture plugin (test/fixtures/oryx-plugin-shout). The packed,
// globally installed CLI does the same in test/install.test.ts.
import { execFile } from 'node:child_process';
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isOryxError, type OryxError } from '@oryxos/provider-spec';
import { kernelVersion } from '@oryxos/kernel';
import { runOryx, tempProject } from '@oryxos/kernel/testing';
import { checkPluginPackage } from '../src/plugin-package.ts';
import { localPath } from '../src/plugin-install.ts';
import { pluginTemplate } from '../src/plugin-templates.ts';

const repo = path.resolve(import.meta.dirname, '..', '..', '..');
const fixture = path.join(repo, 'test', 'fixtures', 'oryx-plugin-shout');
const tsc = path.join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
const run = promisify(execFile);
let dir: string;
const oryx = (args: string[]) => runOryx(args, { cwd: dir, env: { XDG_DATA_HOME: path.join(dir, 'data'), OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined } });
const json = async (args: string[]) => {
  const r = await oryx([...args, '--json']);
  assert.is(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
  return JSON.parse(r.stdout);
};
const row = async (name: string) => (await json(['plugins'])).items.find((p: { package: string }) => p.package === name);

test.before.each(async () => { dir = await tempProject('plugins-'); });
test.after.each(async () => { await rm(dir, { recursive: true, force: true }); });

/** A copy of the fixture plugin in the temp folder, with its package.json changed by `edit`. */
async function shoutCopy(edit: (pkg: Record<string, unknown>) => Record<string, unknown>): Promise<string> {
  const copy = path.join(dir, 'shout');
  await cp(fixture, copy, { recursive: true });
  const file = path.join(copy, 'package.json');
  await writeFile(file, JSON.stringify(edit(JSON.parse(await readFile(file, 'utf8')))));
  return copy;
}

function refusal(root: string, kernel = kernelVersion()): OryxError {
  try { checkPluginPackage(root, kernel); } catch (e) { if (isOryxError(e)) return e; throw e; }
  throw new Error(`${root} was accepted`);
}

test('a package is checked before install: what is missing is named, with how to fix it', async () => {
  assert.equal(checkPluginPackage(fixture, '1.4.0'), {
    name: 'oryx-plugin-shout', version: '1.2.3', root: fixture, oclif: true, commands: true,
    oryx: { plugin: './index.js', kernel: '^1', permissions: [] },
  });
  const plain = await shoutCopy(() => ({ name: 'left-pad-ish', version: '1.0.0' }));
  let e = refusal(plain);
  assert.is(e.code, 'ORYX_E_PLUGINS_NOT_A_PLUGIN');
  assert.match(e.message, 'left-pad-ish is not an OryxOS plugin: its package.json has no "oryx" block');
  await rm(plain, { recursive: true });

  const noFactory = await shoutCopy((pkg) => ({ ...pkg, oryx: { plugin: './dist/index.js', kernel: '^1' } }));
  e = refusal(noFactory);
  assert.is(e.code, 'ORYX_E_PLUGINS_PACKAGE');
  assert.match(e.message, `"oryx.plugin" names ./dist/index.js, which does not exist in ${noFactory}`);
  assert.match(e.hint!, 'npm run build');
  await rm(noFactory, { recursive: true });

  const badRange = await shoutCopy((pkg) => ({ ...pkg, oryx: { plugin: './index.js', kernel: 'one' } }));
  assert.match(refusal(badRange).message, '"oryx.kernel" must be the kernel semver range the plugin was built for (was "one")');
  await rm(badRange, { recursive: true });

  const noOclif = await shoutCopy(({ oclif: _, ...pkg }) => pkg);
  assert.match(refusal(noOclif).hint!, 'Add "oclif": {}');
  await rm(noOclif, { recursive: true });

  e = refusal(fixture, '2.0.1');
  assert.is(e.code, 'ORYX_E_PLUGIN_KERNEL_MISMATCH');
  assert.is(e.message, 'oryx-plugin-shout@1.2.3 needs kernel ^1, but this OryxOS has kernel 2.0.1');
  assert.is(refusal(path.join(dir, 'nothing-here')).code, 'ORYX_E_PLUGINS_NOT_A_PLUGIN');
});

test('install arguments: folders in every spelling are local, package names are not', async () => {
  assert.is(localPath('./shout', '/w'), '/w/shout');
  assert.is(localPath('/abs/shout', '/w'), '/abs/shout');
  assert.is(localPath('file:../shout', '/w/p'), '/w/shout');
  assert.is(localPath('file:///abs/shout', '/w'), '/abs/shout');
  assert.is(localPath('oryx-plugin-shout', '/w'), undefined);
  assert.is(localPath('@scope/plugin@1.2.0', '/w'), undefined);
  await mkdir(path.join(dir, 'bare'));
  await writeFile(path.join(dir, 'bare', 'package.json'), '{}');
  assert.is(localPath('bare', dir), path.join(dir, 'bare'), 'an existing folder with a package.json');
});

test('oryx plugins lists bundled plugins with kernel range, enabled or not, and permissions; link, enable, unlink (colon form)', async () => {
  assert.is((await oryx(['init'])).code, 0);
  const list = await json(['plugins']);
  assert.is(list.kernel, kernelVersion());
  const sqlite = list.items.find((p: { package: string }) => p.package === '@oryxos/plugin-sqlite');
  assert.equal([sqlite.kernel, sqlite.kernelOk, sqlite.enabled, sqlite.from, sqlite.declaredPermissions], ['^1', true, true, 'bundled', ['files:write']]);
  const notify = list.items.find((p: { package: string }) => p.package === '@oryxos/plugin-notify');
  assert.equal([notify.enabled, notify.declaredPermissions], [false, ['smtp']], 'init does not enable notify');
  assert.not.ok(list.items.some((p: { package: string }) => p.package === '@oryxos/plugin-cli' || p.package === '@oryxos/kernel'), 'only plugins are listed');

  const linked = await oryx(['plugins', 'link', fixture, '--no-install']);
  assert.is(linked.code, 0, linked.stderr);
  assert.equal(await row('oryx-plugin-shout'), {
    package: 'oryx-plugin-shout', version: '1.2.3', kernel: '^1', kernelOk: true, enabled: false, from: 'linked', declaredPermissions: [], commands: true, root: fixture,
  });
  const text = await oryx(['plugins']);
  assert.match(text.stdout, /^oryx-plugin-shout\s+1\.2\.3\s+\^1\s+no\s+linked\s+—$/m);
  assert.match(text.stdout, /^PLUGIN\s+VERSION\s+KERNEL\s+ENABLED\s+FROM\s+DECLARES \(NOT ENFORCED\)$/m, 'permissions are labelled as a declaration');

  const configFile = path.join(dir, 'oryx.config.ts');
  await writeFile(configFile, `import shout from 'oryx-plugin-shout';\n${(await readFile(configFile, 'utf8')).replace('plugins: [', 'plugins: [\n    shout(),')}`);
  assert.is((await row('oryx-plugin-shout')).enabled, true, 'the config imports it from the linked folder');
  const shouted = await oryx(['shout', 'hi', '--json']);
  assert.equal(JSON.parse(shouted.stdout), { shout: 'HI!', kernel: kernelVersion(), toolRegistered: true, oneOclif: true });
  assert.is(shouted.stderr, '', 'no oclif warning about transpiling a linked plugin');

  const removed = await oryx(['plugins:uninstall', 'oryx-plugin-shout']);
  assert.is(removed.code, 0, removed.stderr);
  assert.is(await row('oryx-plugin-shout'), undefined);
  const gone = await oryx(['shout', 'hi']);
  assert.is(gone.code, 2);
  assert.match(gone.stderr, 'ORYX_E_CLI_UNKNOWN_COMMAND');
});

test('a plugin whose kernel range does not match is refused at load, naming both versions; nothing runs', async () => {
  assert.is((await oryx(['init'])).code, 0);
  await shoutCopy((pkg) => ({ ...pkg, oryx: { ...(pkg.oryx as object), kernel: '^2' } }));
  const configFile = path.join(dir, 'oryx.config.ts');
  await writeFile(configFile, `import shout from './shout/index.js';\n${(await readFile(configFile, 'utf8')).replace('plugins: [', 'plugins: [\n    shout(),')}`);
  const r = await oryx(['tools']);
  assert.is(r.code, 1, r.stdout);
  assert.match(r.stderr, `error ORYX_E_PLUGIN_KERNEL_MISMATCH: Plugin "shout"@1.2.3 (oryx-plugin-shout) needs kernel ^2, but this is kernel ${kernelVersion()}`);
  assert.match(r.stderr, 'hint: Install a version of oryx-plugin-shout built for kernel');
});

test('oryx plugins new: each kind passes its own test and typechecks; linked, the tool and the channel work in oryx run', async () => {
  const made: Record<string, { dir: string; package: string; files: string[] }> = {};
  for (const kind of ['tool', 'provider', 'channel']) {
    made[kind] = await json(['plugins', 'new', `my-${kind}`, '--kind', kind]);
    const pkgDir = made[kind]!.dir;
    assert.is(pkgDir, path.join(dir, `oryx-plugin-my-${kind}`));
    assert.ok(made[kind]!.files.includes('README.md') && made[kind]!.files.includes(`test/my-${kind}.test.ts`), made[kind]!.files.join());
    // Inside the checkout, the package finds tsx, uvu and the kernel without an install.
    const tested = await run('npm', ['test'], { cwd: pkgDir });
    assert.match(tested.stdout, /Passed:\s+[1-9]/);
    assert.not.match(tested.stdout, /Skipped:\s+[1-9]/);
    await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: pkgDir });
    const linked = await oryx(['plugins', 'link', pkgDir, '--no-install']);
    assert.is(linked.code, 0, linked.stderr);
  }
  const rows = Object.fromEntries((await json(['plugins'])).items.filter((p: { from: string }) => p.from === 'linked')
    .map((p: { package: string; declaredPermissions: string[] }) => [p.package, p.declaredPermissions]));
  assert.equal(rows, { 'oryx-plugin-my-channel': ['files:write'], 'oryx-plugin-my-provider': ['http'], 'oryx-plugin-my-tool': [] });

  await writeFile(path.join(dir, 'oryx.config.ts'), `
    import { defineConfig } from '@oryxos/kernel';
    import { scripted, allowAll } from '@oryxos/kernel/testing';
    import myTool from 'oryx-plugin-my-tool';
    import myChannel from 'oryx-plugin-my-channel';
    export default defineConfig({ plugins: [
      scripted([{ toolCalls: [{ name: 'my_tool', args: { text: 'a b c' } }] }, (req) => ({ text: 'counted ' + req.messages.at(-1).content })]),
      allowAll(), myTool(), myChannel({ file: 'runs.jsonl' }),
    ] });
  `);
  await mkdir(path.join(dir, '.oryxos', 'agents', 'assistant'), { recursive: true });
  await writeFile(path.join(dir, '.oryxos', 'agents', 'assistant', 'AGENT.md'), '---\ndescription: test\ntools: [my_tool]\n---\nYou count.\n');
  const r = await json(['run', 'count']);
  assert.is(r.answer, 'counted {"words":3,"lines":1,"characters":5}');
  const journal = (await readFile(path.join(dir, 'runs.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line));
  assert.equal(journal.map((e: { sessionId: string; answer: string }) => [e.sessionId, e.answer]), [[r.sessionId, r.answer]]);
});

test('docs/plugins.md shows the tool and the channel plugin exactly as oryx plugins new writes them', async () => {
  const doc = await readFile(path.join(repo, 'docs', 'plugins.md'), 'utf8');
  const deps = { kernel: '^1.0.0', pluginKit: '^0.1.0', providerKit: '^0.1.0', providerSpec: '^1.0.0', contracts: '^1.0.0' };
  const shown = { tool: ['word-count', ['package.json', 'src/errors.ts', 'src/index.ts', 'test/word-count.test.ts']], channel: ['journal', ['src/index.ts', 'test/journal.test.ts']] } as const;
  for (const [kind, [name, files]] of Object.entries(shown)) {
    const written = pluginTemplate(name, kind as 'tool' | 'channel', deps);
    for (const file of files) assert.ok(doc.includes(`\n${written[file]!.trimEnd()}\n\`\`\``), `docs/plugins.md shows ${name}/${file} as written`);
  }
});

test('oryx plugins new refuses a bad name and an existing folder, writing nothing', async () => {
  const bad = await oryx(['plugins', 'new', 'My_Tool']);
  assert.is(bad.code, 1);
  assert.match(bad.stderr, 'error ORYX_E_PLUGINS_NEW_NAME: "My_Tool" is not a plugin name');
  await mkdir(path.join(dir, 'oryx-plugin-taken'));
  await writeFile(path.join(dir, 'oryx-plugin-taken', 'keep.txt'), 'mine');
  const taken = await oryx(['plugins', 'new', 'taken', '--kind', 'channel']);
  assert.is(taken.code, 1);
  assert.match(taken.stderr, `error ORYX_E_PLUGINS_NEW_EXISTS: ${path.join(dir, 'oryx-plugin-taken')} already exists`);
  assert.is(await readFile(path.join(dir, 'oryx-plugin-taken', 'keep.txt'), 'utf8'), 'mine');
});

test.run();
