import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig, resolveConfig, type OryxError } from '../src/index.ts';
import { tempProject } from '../src/testing.ts';

let dir: string;
test.before.each(async () => { dir = await tempProject('config-'); });
test.after.each(async () => { await rm(dir, { recursive: true, force: true }); });

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

test('a config file that throws is ORYX_E_CONFIG_LOAD with the cause', async () => {
  await writeFile(path.join(dir, 'oryx.config.ts'), `import x from '@oryxos/plugin-does-not-exist';\nexport default { plugins: [x()] };`);
  const e = await err(() => loadConfig({ cwd: dir }));
  assert.is(e.code, 'ORYX_E_CONFIG_LOAD');
  assert.match(e.message, 'plugin-does-not-exist');
});

test.run();
