// The compiled-config cache cannot be planted (issue 34): it lives in the user's cache folder,
// outside every project, and each entry runs only when its HMAC — under a key in the user's
// state folder — checks against the config's path and source. The end-to-end cases run the
// built CLI (bin/run.js; npm test builds first) in a project folder in a temp dir with no
// node_modules of its own, where a "confined child" (here a plain process: what it can write
// is what counts) plants modules where the old cache was, and where the new one is.
import { execFileSync } from 'node:child_process';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, readdir, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOryx } from '@oryxos/kernel/testing';
import { cacheKey, cacheLocation, compileConfig, importConfigCached, type CacheLocation, type ConfigCompiler } from '@oryxos/command-kit';
import { ImportAliases } from '@oryxos/command-kit';
import { hmacSha256, sha256 } from '@oryxos/command-kit';
import { userDirs } from '@oryxos/command-kit';
import { oryxTrace } from '../../../test/fixtures/trace-oryx.ts';

const repo = path.resolve(import.meta.dirname, '..', '..', '..');
let base: string;
let project: string;
let env: Record<string, string>;
let location: CacheLocation;

test.before.each(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), 'oryx-cache-')));
  project = path.join(base, 'project');
  await mkdir(project);
  env = { HOME: path.join(base, 'home'), XDG_CACHE_HOME: path.join(base, 'cache'), XDG_STATE_HOME: path.join(base, 'state'), XDG_DATA_HOME: path.join(base, 'data') };
  location = cacheLocation(env);
});
test.after.each(async () => { await rm(base, { recursive: true, force: true }); });

const oryx = (args: string[]) => runOryx(args, { cwd: project, env: { ...env, OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined } });
const marker = () => path.join(base, 'PLANTED-RAN');

/** A module body that leaves the marker when it runs, then does what the real config does (so nothing looks different). */
const plantedBody = (realCode: string) => `require('node:fs').writeFileSync(${JSON.stringify(marker())}, 'ran');\n${realCode}`;

/** The compiled text of `oryx.config.ts` as a real entry holds it. */
async function entryOf(file: string): Promise<{ entry: string; code: string }> {
  const entries = await readdir(path.join(location.dir, cacheKey(file)));
  assert.is(entries.length, 1, entries.join());
  const entry = path.join(location.dir, cacheKey(file), entries[0]!);
  const text = await readFile(entry, 'utf8');
  return { entry, code: text.split('\n').slice(2).join('\n') };
}

/** Runs `script` in a separate process, as a confined program would run it. */
function child(script: string): void {
  execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: project });
}

test('oryx init compiles into the user cache, outside the project; the read command after it runs from it (no jiti) and writes nothing', async () => {
  const init = await oryx(['init']);
  assert.is(init.code, 0, init.stderr);
  const file = path.join(project, 'oryx.config.ts');
  const { entry } = await entryOf(file);
  assert.ok(entry.startsWith(path.join(base, 'cache', 'oryxos', 'config') + path.sep), entry);
  assert.not.ok(existsSync(path.join(project, 'node_modules')), 'nothing in the project');
  assert.not.ok(existsSync(path.join(project, '.oryxos', 'cache')), 'nothing in the workspace');
  const key = path.join(base, 'state', 'oryxos', 'config-cache.key');
  assert.match(await readFile(key, 'utf8'), /^[0-9a-f]{64}\n$/);
  assert.is(statSync(key).mode & 0o777, 0o600);
  const before = await readFile(entry, 'utf8');
  const agents = spawnTrace(['agents']);
  assert.is(agents.status, 0, agents.stderr);
  assert.match(agents.stdout, /^assistant\s/m);
  assert.not.ok(agents.loaded.some((url) => /\/jiti\//.test(url)), 'jiti was not loaded: the entry ran');
  assert.is(await readFile(entry, 'utf8'), before);
  assert.equal(await readdir(path.dirname(entry)), [path.basename(entry)]);
});

/** oryxTrace in the project, with this test's HOME and XDG folders. */
function spawnTrace(args: string[]) {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try { return oryxTrace(project, args); } finally { for (const k of Object.keys(env)) { if (saved[k] === undefined) delete process.env[k]; else process.env[k] = saved[k]; } }
}

test('a module planted where the cache was (node_modules/.cache, .oryxos/cache, with the old public key) is never imported by oryx agents', async () => {
  assert.is((await oryx(['init'])).code, 0);
  const file = path.join(project, 'oryx.config.ts');
  const source = await readFile(file, 'utf8');
  const code = (await jiti(file)()).transform({ source, filename: file, ts: true, async: true });
  // What the attacker wrote: the old entry format, named by the old public key (format 2: path and text).
  const oldKey = cacheKey(JSON.stringify([2, file, source]));
  const oldModule = `export const resolve = (id) => import.meta.resolve(id);\nexport default async function (exports, module, require, __filename, __dirname, jitiImport) {\n${plantedBody(code)}\n}\n`;
  child(`
    import { mkdirSync, writeFileSync } from 'node:fs';
    for (const dir of ['node_modules/.cache/oryxos-config', '.oryxos/cache']) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(dir + '/config-${oldKey}.mjs', ${JSON.stringify(oldModule)});
    }
  `);
  const agents = await oryx(['agents']);
  assert.is(agents.code, 0, agents.stderr);
  assert.match(agents.stdout, /^assistant\s/m);
  assert.not.ok(existsSync(marker()), 'the planted module ran');
  // A command that writes does not pick it up either.
  assert.is((await oryx(['init', '--force'])).code, 0);
  assert.is((await oryx(['tools'])).code, 0);
  assert.not.ok(existsSync(marker()), 'the planted module ran');
});

test('an attacker who can write the cache folder but not the key: a forged, a re-keyed and a borrowed entry are all ignored, and a write command replaces them', async () => {
  assert.is((await oryx(['init'])).code, 0);
  const file = path.join(project, 'oryx.config.ts');
  const source = await readFile(file, 'utf8');
  const { entry, code } = await entryOf(file);
  // A second project's genuine entry (a valid MAC, for another path and source).
  const other = path.join(base, 'other');
  await mkdir(other);
  assert.is((await runOryx(['init'], { cwd: other, env: { ...env, OPENAI_API_KEY: 'sk-other-project' } })).code, 0);
  const borrowed = (await readFile((await entryOf(path.join(other, 'oryx.config.ts'))).entry, 'utf8'));
  const header = `// oryx.config.ts (${file}), compiled by oryx with jiti: a cache, safe to delete. Run only when its MAC checks.\n`;
  const macWith = (key: Buffer, body: string) => createHmac('sha256', key).update(`oryx config cache 3\0${file}\0${source}\0${body}`).digest('hex');
  const attempts = {
    'no MAC line': `${header}${plantedBody(code)}`,
    'a MAC of zeros': `${header}// mac ${'0'.repeat(64)}\n${plantedBody(code)}`,
    'a MAC under a key of its own': `${header}// mac ${macWith(randomBytes(32), plantedBody(code))}\n${plantedBody(code)}`,
    'a MAC under an empty key': `${header}// mac ${macWith(Buffer.alloc(0), plantedBody(code))}\n${plantedBody(code)}`,
    'the genuine MAC of the real code, with code added': (await readFile(entry, 'utf8')).replace(code, plantedBody(code)),
    "another project's genuine entry": borrowed,
  };
  for (const [what, text] of Object.entries(attempts)) {
    await writeFile(entry, text); // what the attacker may do: the cache folder is theirs to write
    const agents = await oryx(['agents', '--json']);
    assert.is(agents.code, 0, `${what}: ${agents.stderr}`);
    assert.equal(JSON.parse(agents.stdout).items.map((a: { name: string }) => a.name), ['assistant'], what);
    assert.not.ok(existsSync(marker()), `${what}: the planted entry ran`);
    // The other project's config (the OpenAI provider) did not run in place of this one.
    assert.is(JSON.parse(agents.stdout).items[0].provider, 'ollama', what);
    assert.is(await readFile(entry, 'utf8'), text, `${what}: a read command leaves the cache as it is`);
  }
  // A command that writes compiles the config again over the planted entry.
  assert.is((await oryx(['init', '--force'])).code, 0);
  const again = await readFile(entry, 'utf8');
  assert.not.match(again, 'PLANTED-RAN');
  const key = Buffer.from((await readFile(path.join(base, 'state', 'oryxos', 'config-cache.key'), 'utf8')).trim(), 'hex');
  assert.is(again.split('\n')[1], `// mac ${macWith(key, code)}`, 'the MAC is the HMAC-SHA-256 of path, source and code under the key');
  const traced = spawnTrace(['agents']);
  assert.is(traced.status, 0, traced.stderr);
  assert.not.ok(traced.loaded.some((url) => /\/jiti\//.test(url)), 'the new entry runs from the cache');
  assert.not.ok(existsSync(marker()));
});

// In process: compileConfig and importConfigCached with a cache location of the test's own.
const scriptedConfig = (name: string) => `
  import { defineConfig } from '@oryxos/kernel';
  import { scripted } from '@oryxos/kernel/testing';
  import { name } from './agent-name.ts';
  export default defineConfig({ defaultAgent: name + ${JSON.stringify(name)}, plugins: [scripted([{ text: 'x' }])] });
`;

function jiti(file: string): () => Promise<ConfigCompiler> {
  return async () => (await import('jiti')).createJiti(file, { fsCache: false, interopDefault: true }) as unknown as ConfigCompiler;
}

async function inProcess(): Promise<{ file: string; load: (write?: boolean) => Promise<string | undefined> }> {
  // Inside the checkout, so @oryxos/kernel resolves as the project's own package.
  const dir = await mkdtemp(path.join(repo, '.tmp', 'cache-inproc-'));
  await mkdir(path.join(dir, '.oryxos'));
  await writeFile(path.join(dir, 'agent-name.ts'), `export const name: string = 'agent';`);
  const file = path.join(dir, 'oryx.config.ts');
  const aliases = new ImportAliases(dir, [repo]);
  return {
    file,
    // What the cache gave (undefined: nothing, so config-file.ts runs the file through jiti).
    load: async (write = true) => {
      const r = await importConfigCached(file, aliases, jiti(file), { write, location });
      return r ? (r.config as { defaultAgent: string }).defaultAgent : undefined;
    },
  };
}

test('in process: one entry per config, reused while the source is the same, replaced on an edit; a read-only load writes no key and no entry', async () => {
  const { file, load } = await inProcess();
  try {
    await writeFile(file, scriptedConfig('-1'));
    assert.is(await load(false), undefined, 'read-only and nothing cached: jiti runs it');
    assert.not.ok(existsSync(location.keyFile), 'no key made by a read');
    assert.not.ok(existsSync(location.dir), 'no entry made by a read');
    assert.is(await load(), 'agent-1');
    const folder = path.join(location.dir, cacheKey(file));
    const [first] = await readdir(folder);
    assert.is(await load(false), 'agent-1', 'a read uses it');
    assert.equal(await readdir(folder), [first]);
    await writeFile(file, scriptedConfig('-2'));
    assert.is(await load(false), undefined, 'an edited config is not what the entry holds');
    assert.is(await load(), 'agent-2');
    const entries = await readdir(folder);
    assert.is(entries.length, 1, 'the older entry is removed');
    assert.is.not(entries[0], first);
    // A config that no longer exists (its project deleted) loses its folder when another config is compiled.
    const gone = path.join(path.dirname(file), 'gone.config.ts');
    await writeFile(gone, scriptedConfig('-gone'));
    assert.ok(await compileConfig(gone, jiti(gone), { location }));
    assert.ok(existsSync(path.join(location.dir, cacheKey(gone))));
    await rm(gone);
    await writeFile(file, scriptedConfig('-3'));
    assert.is(await load(), 'agent-3');
    assert.not.ok(existsSync(path.join(location.dir, cacheKey(gone))), 'the deleted config\'s entries are removed');
    assert.ok(existsSync(folder), 'a config that exists keeps its entry');
  } finally {
    await rm(path.dirname(file), { recursive: true, force: true });
  }
});

test('in process: the key must be a regular file only this user may read and write, or nothing is cached', async () => {
  const { file, load } = await inProcess();
  try {
    await writeFile(file, scriptedConfig(''));
    assert.is(await load(), 'agent');
    const good = await readFile(location.keyFile, 'utf8');
    for (const mode of [0o640, 0o604, 0o660]) {
      await chmod(location.keyFile, mode);
      assert.is(await load(false), undefined, `mode ${mode.toString(8)}: not used`);
      assert.is(await load(), undefined, 'not even by a command that writes');
      assert.is(await readFile(location.keyFile, 'utf8'), good, 'and the key is left for the user to remove');
    }
    await chmod(location.keyFile, 0o600);
    assert.is(await load(false), 'agent');
    // A link to a key file the attacker made: not followed.
    const theirs = path.join(base, 'their.key');
    await writeFile(theirs, `${'ab'.repeat(32)}\n`, { mode: 0o600 });
    await rm(location.keyFile);
    await symlink(theirs, location.keyFile);
    assert.is(await load(false), undefined);
    assert.is(await load(), undefined);
    await rm(location.keyFile);
    await writeFile(location.keyFile, 'not a key\n', { mode: 0o600 });
    assert.is(await load(), undefined);
    assert.is(await compileConfig(file, jiti(file), { location }), undefined, 'nothing is authenticated with a key that is not one');
  } finally {
    await rm(path.dirname(file), { recursive: true, force: true });
  }
});

test('in process: the compiled code runs from the text that was checked; a config that throws names its own file and line', async () => {
  const { file, load } = await inProcess();
  try {
    await writeFile(file, `import { defineConfig } from '@oryxos/kernel';\nconst where = import.meta.url;\n\nthrow new Error('boom at ' + where);\n`);
    const e = await load().then(() => undefined, (error: Error) => error);
    assert.ok(e, 'it throws');
    assert.match(e!.message, `boom at file://${file}`);
    assert.match(e!.stack!, `${file}:4`);
  } finally {
    await rm(path.dirname(file), { recursive: true, force: true });
  }
});

test('HMAC-SHA-256 in plain JavaScript equals node:crypto at every length around the block boundaries, and for long keys', () => {
  for (let n = 0; n < 260; n++) {
    const data = randomBytes(n);
    assert.is(Buffer.from(sha256(data)).toString('hex'), createHash('sha256').update(data).digest('hex'), `sha256 of ${n} bytes`);
    const key = randomBytes(n % 140);
    assert.is(hmacSha256(key, data), createHmac('sha256', key).update(data).digest('hex'), `hmac, ${n} bytes, key ${key.length}`);
  }
  const text = 'é🙂\0 config';
  assert.is(hmacSha256(Buffer.from('k'), text), createHmac('sha256', 'k').update(text, 'utf8').digest('hex'), 'a string is UTF-8');
  assert.is(Buffer.from(sha256(new TextEncoder().encode('abc'))).toString('hex'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad', 'FIPS 180-2 example');
});

test('the user folders follow XDG (absolute values only) and fall back to the home folder', () => {
  assert.equal(userDirs({ HOME: '/home/me' }), { cache: '/home/me/.cache/oryxos', state: '/home/me/.local/state/oryxos' });
  assert.equal(userDirs({ HOME: '/home/me', XDG_CACHE_HOME: '/c', XDG_STATE_HOME: '/s' }), { cache: '/c/oryxos', state: '/s/oryxos' });
  assert.equal(userDirs({ HOME: '/home/me', XDG_CACHE_HOME: 'rel', XDG_STATE_HOME: '' }), { cache: '/home/me/.cache/oryxos', state: '/home/me/.local/state/oryxos' });
  assert.equal(cacheLocation({ HOME: '/home/me' }), { dir: '/home/me/.cache/oryxos/config', keyFile: '/home/me/.local/state/oryxos/config-cache.key' });
});

test.run();
