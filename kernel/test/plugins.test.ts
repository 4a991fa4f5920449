import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Kernel, KERNEL_VERSION, OryxError, orderPlugins, resolveConfig, type Plugin, type Tool } from '../src/index.ts';
import { scripted, testKernel } from '../src/testing.ts';
import { readFileSync } from 'node:fs';

const p = (name: string, extra: Partial<Plugin> = {}): Plugin => ({ name, version: '1.0.0', kernel: '^1', setup() {}, ...extra });
const code = (fn: () => unknown): string => {
  try { fn(); } catch (e) { return (e as OryxError).code; }
  return 'no error';
};
const codeAsync = async (fn: () => Promise<unknown>): Promise<[string, string]> => {
  try { await fn(); } catch (e) { return [(e as OryxError).code, (e as OryxError).message + ' | ' + (e as OryxError).hint]; }
  return ['no error', ''];
};

test('KERNEL_VERSION matches the kernel package.json', () => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  assert.is(KERNEL_VERSION, pkg.version);
});

test('orderPlugins puts required plugins first and keeps config order otherwise', () => {
  const ordered = orderPlugins([p('audit', { requires: ['sqlite'] }), p('web', { requires: ['sqlite', 'audit'] }), p('sqlite'), p('tools')], '1.0.0');
  assert.equal(ordered.map((x) => x.name), ['sqlite', 'audit', 'web', 'tools']);
});

test('a missing dependency names the plugin to add to oryx.config.ts', () => {
  try {
    orderPlugins([p('audit', { requires: ['sqlite'] })], '1.0.0');
    assert.unreachable();
  } catch (e) {
    const err = e as OryxError;
    assert.is(err.code, 'ORYX_E_PLUGIN_MISSING_DEPENDENCY');
    assert.match(err.message, 'Plugin "audit" requires plugin "sqlite"');
    assert.match(err.hint!, 'sqlite()');
    assert.match(err.hint!, 'oryx.config.ts');
  }
});

test('duplicates, kernel range mismatches, cycles and non-plugins are refused', () => {
  assert.is(code(() => orderPlugins([p('a'), p('a')], '1.0.0')), 'ORYX_E_PLUGIN_DUPLICATE');
  assert.is(code(() => orderPlugins([p('a', { kernel: '^2' })], '1.0.0')), 'ORYX_E_PLUGIN_KERNEL_MISMATCH');
  assert.is(code(() => orderPlugins([p('a', { kernel: '>=1.1' })], '1.0.0')), 'ORYX_E_PLUGIN_KERNEL_MISMATCH');
  assert.is(code(() => orderPlugins([p('a', { kernel: '^1.0.0' })], '1.4.2')), 'no error');
  assert.is(code(() => orderPlugins([p('a', { requires: ['b'] }), p('b', { requires: ['a'] })], '1.0.0')), 'ORYX_E_PLUGIN_CYCLE');
  assert.is(code(() => orderPlugins([{ name: 'x' } as unknown as Plugin], '1.0.0')), 'ORYX_E_PLUGIN_INVALID');
});

test('registries: duplicate tool and provider names are errors', async () => {
  const tool: Tool = { name: 't', description: '', source: 'plugin', inputSchema: {}, async execute() { return ''; } };
  const [c1, m1] = await codeAsync(() => testKernel({ plugins: [p('one', { setup: (k) => k.registerTool(tool) }), p('two', { setup: (k) => k.registerTool(tool) })] }));
  assert.is(c1, 'ORYX_E_REGISTRY_DUPLICATE');
  assert.match(m1, 'by one and two');
  const [c2] = await codeAsync(() => testKernel({ plugins: [scripted([]), scripted([], { name: 'scripted' })].map((x, i) => ({ ...x, name: `s${i}` })) }));
  assert.is(c2, 'ORYX_E_REGISTRY_DUPLICATE');
  const [c3] = await codeAsync(() => testKernel({ plugins: [p('bad', { setup: (k) => k.registerTool({ ...tool, name: 'has space' }) })] }));
  assert.is(c3, 'ORYX_E_PLUGIN_INVALID');
});

test('after start the registries are frozen', async () => {
  const t = await testKernel({ plugins: [scripted([])] });
  const tool: Tool = { name: 'late', description: '', source: 'plugin', inputSchema: {}, async execute() { return ''; } };
  assert.is(code(() => t.kernel.registerTool(tool)), 'ORYX_E_REGISTRY_FROZEN');
  assert.is(code(() => t.kernel.provide('sandbox', { async enforce() { return { allow: true }; } })), 'ORYX_E_REGISTRY_FROZEN');
  await t.close();
});

test('services: provided by name; a missing one says what to enable; defaults for sessions and sandbox', async () => {
  const t = await testKernel({ plugins: [scripted([])] });
  assert.is(code(() => t.kernel.service('database')), 'ORYX_E_SERVICE_MISSING');
  const decision = await t.kernel.service('sandbox').enforce({ kind: 'exec', command: 'ls', args: [] });
  assert.equal(decision.allow, false);
  assert.ok(t.kernel.service('sessions'));
  assert.is(t.kernel.serviceOwner('sessions'), 'kernel');
  await t.close();
});

test('a plugin that throws in setup is named, and plugins already set up are closed', async () => {
  const closed: string[] = [];
  const first = p('first', { setup: (k) => { k.hooks.close.tapPromise('first', async () => { closed.push('first'); }); } });
  const broken = p('broken', { setup: () => { throw new Error('bad option'); } });
  const [c, m] = await codeAsync(() => testKernel({ plugins: [first, broken] }));
  assert.is(c, 'ORYX_E_PLUGIN_SETUP');
  assert.match(m, 'Plugin "broken" failed in setup: bad option');
  assert.equal(closed, ['first']);
});

test('the provider an agent uses: explicit name, config default, or the only one', async () => {
  const t = await testKernel({
    plugins: [scripted([{ text: 'from a' }], { name: 'a' }), { ...scripted([{ text: 'from b' }], { name: 'b' }) }],
    agents: { pinned: { provider: 'b' }, loose: {}, wrong: { provider: 'zzz' } },
  });
  assert.is((await t.service.process({ agent: 'pinned', message: 'x' })).answer, 'from b');
  const [c1, m1] = await codeAsync(() => t.service.process({ agent: 'loose', message: 'x' }));
  assert.is(c1, 'ORYX_E_PROVIDER_NOT_FOUND');
  assert.match(m1, 'several are enabled');
  const [c2, m2] = await codeAsync(() => t.service.process({ agent: 'wrong', message: 'x' }));
  assert.is(c2, 'ORYX_E_PROVIDER_NOT_FOUND');
  assert.match(m2, 'Enabled providers: a, b');
  await t.close();
});

test('a started kernel cannot be started again', async () => {
  const k = new Kernel({ config: resolveConfig({ plugins: [] }, process.cwd()) });
  await k.start();
  const [c] = await codeAsync(() => k.start());
  assert.is(c, 'ORYX_E_REGISTRY_FROZEN');
  await k.close();
});

test.run();
