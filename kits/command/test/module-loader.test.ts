// How modules load by URL (`@oryxos/command-kit/module-loader`): with `require` where Node can,
// `import()` for what `require` cannot load or would load past module hooks. The config's
// packages go through it (config-modules.test.ts): checked in a plain Node (this test runs under
// tsx, whose hooks would change the answer).
import { spawnSync } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempProject } from '@oryxos/kernel/testing';

let dir: string;
test.before.each(async () => { dir = await tempProject('module-loader-'); });
test.after.each(async () => { await rm(dir, { recursive: true, force: true }); });

async function files(entries: Record<string, string>): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [name, text] of Object.entries(entries)) {
    out[name] = path.join(dir, name);
    await mkdir(path.dirname(out[name]!), { recursive: true });
    await writeFile(out[name]!, text);
  }
  return out;
}

/**
 * Runs `body` (an ES module's text, with `loadModule`, `moduleHooks`, `url(name)` and `required(name)`
 * in scope) in a plain Node, without this test's tsx hooks, and returns what it printed as JSON.
 */
async function inNode(body: string, env: Record<string, string> = {}): Promise<unknown> {
  const script = path.join(dir, 'check.mjs');
  await writeFile(script, `import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadModule, moduleHooks } from ${JSON.stringify(pathToFileURL(path.resolve('kits/command/dist/module-loader.js')).href)};
const url = (name) => pathToFileURL(path.join(${JSON.stringify(dir)}, name)).href;
const required = (name) => createRequire(import.meta.url).cache[path.join(${JSON.stringify(dir)}, name)] !== undefined;
${body}
`);
  const r = spawnSync(process.execPath, [script], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '', ...env } });
  assert.is(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test('an ES module loads with require; top-level await, CommonJS and data: URLs with import()', async () => {
  await files({
    'pkg/package.json': '{ "type": "module" }',
    'pkg/esm.js': "import { two } from './dep.js';\nexport const one = 1;\nexport { two };\n",
    'pkg/dep.js': 'export const two = 2;\n',
    'pkg/tla.js': 'export const late = await Promise.resolve(3);\n',
    'cjs/index.cjs': 'module.exports = { four: 4 };\n',
  });
  const out = await inNode(`
const esm = await loadModule(url('pkg/esm.js'));
const tla = await loadModule(url('pkg/tla.js'));
const cjs = await loadModule(url('cjs/index.cjs'));
const data = await loadModule('data:text/javascript,export const five = 5');
console.log(JSON.stringify({ hooks: moduleHooks(), esm: { ...esm }, esmRequired: required('pkg/esm.js'), tla: tla.late, tlaRequired: required('pkg/tla.js'), cjs: cjs.default, five: data.five }));
`);
  assert.equal(out, { hooks: false, esm: { one: 1, two: 2 }, esmRequired: true, tla: 3, tlaRequired: false, cjs: { four: 4 }, five: 5 });
});

test('with module hooks in the process (--import, or sync off) an ES module loads with import()', async () => {
  await files({ 'pkg/package.json': '{ "type": "module" }', 'pkg/esm.js': 'export const one = 1;\n', 'pkg/other.js': 'export const two = 2;\n' });
  const hook = (await files({ 'hook.mjs': "import { register } from 'node:module';\nregister('data:text/javascript,export async function resolve(s, c, next) { return next(s, c); }');\n" }))['hook.mjs']!;
  const body = `
const esm = await loadModule(url('pkg/esm.js'));
const off = await loadModule(url('pkg/other.js'), false);
console.log(JSON.stringify({ hooks: moduleHooks(), one: esm.one, required: required('pkg/esm.js'), two: off.two, offRequired: required('pkg/other.js') }));
`;
  assert.equal(await inNode(body, { NODE_OPTIONS: `--import ${hook}` }), { hooks: true, one: 1, required: false, two: 2, offRequired: false });
});

test('a missing file fails as Node says, not as a fallback', async () => {
  const out = await inNode(`
try { await loadModule(url('nowhere.js')); console.log('"loaded"'); } catch (error) { console.log(JSON.stringify(error.code)); }
`);
  assert.is(out, 'MODULE_NOT_FOUND');
});

test.run();
