// How the compiled config loads the packages it imports, through the built CLI: synchronously
// (`require` of an ES module) where Node can, else `import()` as before. Each kind of package a
// config may import still loads: an ES module, one with top-level await, a CommonJS one.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOryx, tempProject, writeAgents } from '@oryxos/kernel/testing';

let dir: string;
test.before.each(async () => { dir = await tempProject('config-modules-'); });
test.after.each(async () => { await rm(dir, { recursive: true, force: true }); });

/** A package in the project's node_modules. */
async function pkg(name: string, json: Record<string, unknown>, files: Record<string, string>): Promise<void> {
  const at = path.join(dir, 'node_modules', name);
  await mkdir(at, { recursive: true });
  await writeFile(path.join(at, 'package.json'), JSON.stringify({ name, version: '1.0.0', ...json }));
  for (const [file, text] of Object.entries(files)) await writeFile(path.join(at, file), text);
}

// A plugin that registers one tool, whose description says whether this file is in require's
// cache (loaded with `require`) or not (loaded with `import()`).
const plugin = (tool: string, self: string) => `{
  name: '${tool}', version: '1.0.0', kernel: '^1',
  setup(k) {
    const how = ${self} ? 'required' : 'imported';
    k.registerTool({ name: '${tool}', description: how, source: 'plugin', inputSchema: { type: 'object', properties: {} }, async execute() { return how; } });
  },
}`;
const esmSelf = "createRequire(import.meta.url).cache[fileURLToPath(import.meta.url)] !== undefined";
const esmHead = "import { createRequire } from 'node:module';\nimport { fileURLToPath } from 'node:url';\n";

test('ES module plugins load with require, one with top-level await and a CommonJS one as before; the config runs', async () => {
  await pkg('esm-plugin', { type: 'module', exports: './index.js' }, {
    'index.js': `${esmHead}import { helper } from './helper.js';\nexport const esm = () => (${plugin('esm_tool', esmSelf)});\nexport { helper };\n`,
    'helper.js': 'export const helper = 1;\n',
  });
  await pkg('tla-plugin', { type: 'module', exports: './index.js' }, {
    'index.js': `${esmHead}const ready = await Promise.resolve(true);\nexport default () => (ready && ${plugin('tla_tool', esmSelf)});\n`,
  });
  await pkg('cjs-plugin', { main: 'index.js' }, {
    'index.js': `module.exports = () => (${plugin('cjs_tool', 'require.cache[__filename] !== undefined')});\n`,
  });
  await writeAgents(path.join(dir, '.oryxos'), { assistant: { tools: ['esm_tool', 'tla_tool', 'cjs_tool'] } });
  await writeFile(path.join(dir, 'oryx.config.ts'), `
    import { defineConfig } from '@oryxos/kernel';
    import { scripted } from '@oryxos/kernel/testing';
    import { esm, helper } from 'esm-plugin';
    import tla from 'tla-plugin';
    import cjs from 'cjs-plugin';
    export default defineConfig({ plugins: [scripted([{ text: 'helper ' + helper }]), esm(), tla(), cjs()] });
  `);
  // The first command that writes compiles the config into the cache; read commands use it then.
  const run = await runOryx(['run', 'hi'], { cwd: dir });
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stdout, 'helper 1');
  const tools = await runOryx(['tools', '--json'], { cwd: dir });
  assert.is(tools.code, 0, tools.stderr);
  const how = Object.fromEntries((JSON.parse(tools.stdout) as { items: { name: string; description: string }[] }).items.map((t) => [t.name, t.description]));
  assert.equal(how, { esm_tool: 'required', tla_tool: 'imported', cjs_tool: 'required' });
});

test('with --import hooks in the process (tsx, a tracer) every package loads with import()', async () => {
  await pkg('esm-plugin', { type: 'module', exports: './index.js' }, {
    'index.js': `${esmHead}export const esm = () => (${plugin('esm_tool', esmSelf)});\n`,
  });
  await writeAgents(path.join(dir, '.oryxos'), { assistant: { tools: ['esm_tool'] } });
  await writeFile(path.join(dir, 'oryx.config.ts'), `
    import { defineConfig } from '@oryxos/kernel';
    import { scripted } from '@oryxos/kernel/testing';
    import { esm } from 'esm-plugin';
    export default defineConfig({ plugins: [scripted([{ text: 'ok' }]), esm()] });
  `);
  const hook = path.join(dir, 'hook.mjs');
  await writeFile(hook, "import { register } from 'node:module';\nregister('data:text/javascript,export async function resolve(s, c, next) { return next(s, c); }');\n");
  assert.is((await runOryx(['run', 'hi'], { cwd: dir })).code, 0);
  const tools = await runOryx(['tools', '--json'], { cwd: dir, env: { NODE_OPTIONS: `--import ${hook}` } });
  assert.is(tools.code, 0, tools.stderr);
  assert.equal((JSON.parse(tools.stdout) as { items: { name: string; description: string }[] }).items.find((t) => t.name === 'esm_tool')?.description, 'imported');
});

test.run();
