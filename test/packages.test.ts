// Every package of the workspace, checked the same way: a plugin's version, kernel range and
// package name come from its package.json (never a hand-written copy), the range matches this
// kernel, no package but the CLI brings its own @oclif/core (one copy per install), and no
// package depends on a plugin package.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import satisfies from 'semver/functions/satisfies.js';
import { kernelVersion, type Plugin } from '@oryxos/kernel';

const root = path.resolve(import.meta.dirname, '..');
const folders = ['kernel', ...['kits', 'plugins'].flatMap((f) => readdirSync(path.join(root, f)).map((d) => `${f}/${d}`))];
const packages = folders.map((dir) => ({ dir, pkg: JSON.parse(readFileSync(path.join(root, dir, 'package.json'), 'utf8')) }));

// Factories that need options to be called at all.
const OPTIONS: Record<string, unknown> = { '@oryxos/plugin-replay': { cassette: 'packages-test' }, '@oryxos/plugin-mcp-server': { agents: ['assistant'] }, '@oryxos/plugin-postgres': { url: 'postgres://127.0.0.1/oryx' },
  '@oryxos/channel-email': { imap: { host: 'imap.example.com', user: 'bot@example.com', passEnv: 'IMAP_PASS' }, smtp: 'bot', allow: ['*@example.com'] },
  '@oryxos/channel-telegram': { allow: { users: [123456789] } },
};

test('every OryxOS plugin takes its version, kernel range and package name from its package.json', async () => {
  const plugins = packages.filter(({ pkg }) => pkg.oryx?.plugin);
  assert.ok(plugins.length >= 11, `found ${plugins.length} plugin packages`);
  for (const { dir, pkg } of plugins) {
    const factory = (await import(pathToFileURL(path.join(root, dir, pkg.oryx.plugin)).href)).default as (o?: unknown) => Plugin;
    const plugin = factory(OPTIONS[pkg.name]);
    assert.equal([plugin.version, plugin.kernel, plugin.package], [pkg.version, pkg.oryx.kernel, pkg.name], pkg.name);
    assert.ok(satisfies(kernelVersion(), pkg.oryx.kernel), `${pkg.name} needs kernel ${pkg.oryx.kernel}, this is ${kernelVersion()}`);
    assert.ok(Array.isArray(pkg.oryx.permissions), `${pkg.name} declares its permissions`);
    assert.is(pkg.peerDependencies?.['@oryxos/kernel'], '^1.0.0', `${pkg.name} takes the kernel as a peer`);
  }
});

test('only the CLI depends on @oclif/core; packages with commands take it (and the CLI base) as peers', () => {
  for (const { pkg } of packages) {
    if (pkg.name === '@oryxos/plugin-cli') continue;
    assert.not.ok(pkg.dependencies?.['@oclif/core'], `${pkg.name} brings its own @oclif/core`);
    if (pkg.oclif?.commands) {
      assert.ok(pkg.peerDependencies?.['@oclif/core'], `${pkg.name} has commands but no @oclif/core peer`);
      assert.ok(pkg.peerDependencies?.['@oryxos/command-kit'], `${pkg.name} has commands but no @oryxos/command-kit peer`);
      assert.not.ok(pkg.dependencies?.['@oryxos/plugin-cli'] ?? pkg.peerDependencies?.['@oryxos/plugin-cli'], `${pkg.name} depends on the CLI package`);
    }
  }
  const kernel = packages.find(({ pkg }) => pkg.name === '@oryxos/kernel')!.pkg;
  assert.not.ok(JSON.stringify(kernel.dependencies).includes('oclif'), 'the kernel depends on oclif');
});

test('no package depends on a plugin package or builds against one: plugins meet through kits and declared services', () => {
  const pluginNames = new Set(packages.filter(({ pkg }) => pkg.oryx?.plugin).map(({ pkg }) => pkg.name));
  const pluginDirs = new Set(packages.filter(({ pkg }) => pkg.oryx?.plugin).map(({ dir }) => dir));
  for (const { dir, pkg } of packages) {
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
      for (const name of Object.keys(pkg[field] ?? {})) assert.not.ok(pluginNames.has(name), `${pkg.name} lists the plugin package ${name} in ${field}`);
    }
    // A project reference builds one package against another's output, whatever package.json says.
    const tsconfig = JSON.parse(readFileSync(path.join(root, dir, 'tsconfig.json'), 'utf8')) as { references?: { path: string }[] };
    for (const ref of tsconfig.references ?? []) {
      const target = path.posix.normalize(path.posix.join(dir, ref.path));
      assert.not.ok(pluginDirs.has(target), `${dir}/tsconfig.json references the plugin ${target}`);
    }
  }
});

test.run();
