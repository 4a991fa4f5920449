import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Kernel, kernelVersion, STAGE, pluginPackage, resolveConfig, type Plugin, type PluginContext, type Tool } from '@oryxos/kernel';
import { OryxError } from '@oryxos/provider-spec';
import { orderPlugins as orderSource } from '../src/plugin.ts';

/** The loader's ordering (from the source), taking plugins as the package types them. */
const orderPlugins = (plugins: Plugin[], version: string, builtIn?: string[]): Plugin[] => orderSource(plugins as never, version, builtIn) as never;
import satisfies from 'semver/functions/satisfies.js';
import { scripted, testKernel } from '@oryxos/kernel/testing';
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

test('the kernel version and a plugin package\'s version and range come from their package.json', () => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  assert.is(kernelVersion(), pkg.version);
  const sqlite = JSON.parse(readFileSync(new URL('../../plugins/sqlite/package.json', import.meta.url), 'utf8'));
  assert.equal(pluginPackage(new URL('../../plugins/sqlite/dist/index.js', import.meta.url).href), { package: '@oryxos/plugin-sqlite', version: sqlite.version, kernel: sqlite.oryx.kernel });
  assert.is(code(() => pluginPackage(import.meta.url)), 'ORYX_E_PLUGIN_INVALID', 'the kernel package declares no oryx.kernel range');
});

test('orderPlugins sets up the provider of a required service first and keeps config order otherwise', () => {
  const ordered = orderPlugins([
    p('audit', { requires: ['database'], provides: ['audit'] }), p('web', { requires: ['database', 'audit'] }), p('sqlite', { provides: ['database', 'sessions'] }), p('tools'),
  ], '1.0.0', ['sessions', 'sandbox']);
  assert.equal(ordered.map((x) => x.name), ['sqlite', 'audit', 'web', 'tools']);
  assert.is(code(() => orderPlugins([p('mcp', { requires: ['sandbox'] })], '1.0.0', ['sessions', 'sandbox'])), 'no error', 'the kernel provides sandbox and sessions itself');
});

test('a required service no plugin provides names the service and the plugin that needs it, before any setup', async () => {
  let setups = 0;
  const [c, m] = await codeAsync(() => testKernel({ plugins: [p('audit', { requires: ['database'], setup: () => { setups++; } })] }));
  assert.is(c, 'ORYX_E_PLUGIN_MISSING_DEPENDENCY');
  assert.match(m, 'Plugin "audit" requires the "database" service, which no enabled plugin provides');
  assert.match(m, 'oryx.config.ts');
  assert.is(setups, 0);
});

test('duplicates, two providers of a service, kernel range mismatches, cycles and non-plugins are refused', () => {
  assert.is(code(() => orderPlugins([p('a'), p('a')], '1.0.0')), 'ORYX_E_PLUGIN_DUPLICATE');
  assert.is(code(() => orderPlugins([p('a', { provides: ['database'] }), p('b', { provides: ['database'] })], '1.0.0')), 'ORYX_E_REGISTRY_DUPLICATE');
  assert.is(code(() => orderPlugins([p('a', { kernel: '^2' })], '1.0.0')), 'ORYX_E_PLUGIN_KERNEL_MISMATCH');
  assert.is(code(() => orderPlugins([p('a', { kernel: '>=1.1' })], '1.0.0')), 'ORYX_E_PLUGIN_KERNEL_MISMATCH');
  assert.is(code(() => orderPlugins([p('a', { kernel: '^1.0.0' })], '1.4.2')), 'no error');
  assert.is(code(() => orderPlugins([p('a', { requires: ['audit'], provides: ['database'] }), p('b', { requires: ['database'], provides: ['audit'] })], '1.0.0')), 'ORYX_E_PLUGIN_CYCLE');
  assert.is(code(() => orderPlugins([{ name: 'x' } as unknown as Plugin], '1.0.0')), 'ORYX_E_PLUGIN_INVALID');
});

test('a kernel range mismatch names the plugin, its package, the range it needs and this kernel', () => {
  try {
    orderPlugins([p('acme', { kernel: '^2', version: '3.1.0', package: 'oryx-plugin-acme' })], '1.4.0');
    assert.unreachable();
  } catch (e) {
    const err = e as OryxError;
    assert.is(err.code, 'ORYX_E_PLUGIN_KERNEL_MISMATCH');
    assert.is(err.message, 'Plugin "acme"@3.1.0 (oryx-plugin-acme) needs kernel ^2, but this is kernel 1.4.0');
  }
});

test('the plugin context: its name on every tap, tool and service; options, config and a named logger; no start or close', async () => {
  let seen: PluginContext | undefined;
  const order: string[] = [];
  const tool: Tool = { name: 'mine', description: '', source: 'plugin', inputSchema: {}, async execute() { return ''; } };
  const mine = p('mine', {
    options: { greeting: 'hi' }, provides: ['memory'],
    setup(ctx) {
      seen = ctx;
      ctx.registerTool(tool);
      ctx.log.warn('careful');
      ctx.hooks.afterRun.tapPromise({ stage: STAGE.OBSERVE }, async () => { order.push('observe'); });
      ctx.hooks.afterRun.tapPromise(async () => { throw new Error('boom'); });
    },
  });
  const llm = scripted([{ text: 'ok' }]);
  const t = await testKernel({ plugins: [llm, mine] });
  assert.is(seen!.name, 'mine');
  assert.equal(seen!.options, { greeting: 'hi' });
  assert.is(seen!.config.root, t.dir);
  assert.is(seen!.version, kernelVersion());
  assert.equal(t.warnings, ['mine: careful']);
  assert.not.ok('start' in seen! || 'close' in seen!);
  assert.equal(Object.keys(seen!.hooks.afterRun), ['tapPromise']);
  assert.is((await t.kernel.allTools((await t.kernel.agents.list())[0]!)).find((x) => x.name === 'mine')?.plugin, 'mine');
  const r = await t.service.process({ agent: 'assistant', message: 'hi' }).catch((e: OryxError) => e);
  assert.match((r as OryxError).message, 'Plugin "mine" failed in hook "afterRun": boom');
  await t.close();
});

test('a service a plugin did not declare in provides is refused, naming it', async () => {
  const sneaky = p('sneaky', { setup: (ctx) => ctx.provide('memory', {} as never) });
  const [c, m] = await codeAsync(() => testKernel({ plugins: [sneaky] }));
  assert.is(c, 'ORYX_E_PLUGIN_INVALID');
  assert.match(m, 'Plugin "sneaky" provides the "memory" service without declaring it');
  assert.match(m, "provides: ['memory']");
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

test('after start the registries are frozen: a context kept past setup cannot register', async () => {
  let kept: PluginContext | undefined;
  const t = await testKernel({ plugins: [scripted([]), p('keeper', { provides: ['sandbox'], setup: (ctx) => { kept = ctx; } })] });
  const tool: Tool = { name: 'late', description: '', source: 'plugin', inputSchema: {}, async execute() { return ''; } };
  assert.is(code(() => kept!.registerTool(tool)), 'ORYX_E_REGISTRY_FROZEN');
  assert.is(code(() => kept!.provide('sandbox', { async enforce() { return { allow: true }; }, async launch() { return { allow: false, reason: 'no' }; } })), 'ORYX_E_REGISTRY_FROZEN');
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
  const first = p('first', { setup: (k) => { k.hooks.close.tapPromise(async () => { closed.push('first'); }); } });
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
