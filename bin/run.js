#!/usr/bin/env node
// The `oryx` command. `oryx --version` is `oryx version` (the CLI, the kernel and every
// package with its version). When plugins were added with `oryx plugins install` or `link`,
// their imports of the packages OryxOS provides to plugins resolve to this installation's
// copies (host-modules.js), so a process holds one kernel and one @oclif/core. The module hooks
// go in before oclif loads anything, since it may import a plugin's commands while it starts;
// the added plugins' own oclif hooks never run.
// Node's modules without ES module facades (see scripts/bundle-builtins.mjs).
const { existsSync, readFileSync } = process.getBuiltinModule('node:fs');
const Module = process.getBuiltinModule('node:module');
const { homedir } = process.getBuiltinModule('node:os');
const path = process.getBuiltinModule('node:path');

// @oclif/core from its one-file copy, the module every OryxOS package imports it from
// (scripts/bundle-oclif.mjs): Node reads one file instead of ~250.
const { Config, execute, settings } = await import('@oryxos/command-kit/oclif');

const args = process.argv.slice(2);
if (args[0] === '--version' || args[0] === '-v') args[0] = 'version';

// Where oclif keeps the plugins a user adds: $ORYX_DATA_DIR, else <data home>/<oclif.dirname>.
const { oclif } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const dataHome = process.env.XDG_DATA_HOME || (process.platform === 'win32' && process.env.LOCALAPPDATA) || path.join(process.env.HOME || homedir(), '.local', 'share');
const plugins = path.join(process.env.ORYX_DATA_DIR || path.join(dataHome, oclif.dirname), 'package.json');
// Plugins run as built JavaScript: oclif must not try to transpile a linked plugin's TypeScript
// (it cannot for ESM, and says so on every command).
settings.enableAutoTranspile = false;
let loadOptions;
if (existsSync(plugins) && JSON.parse(readFileSync(plugins, 'utf8')).oclif?.plugins?.length) {
  Module.register('./host-modules.js', import.meta.url);
  globalThis[Symbol.for('oryxos.hostModules')] = true; // `oryx plugins install` registers them otherwise
  // No oclif hook of an added plugin runs (`init` would run on every command, enabled or not):
  // what a plugin does, it does through the kernel once oryx.config.ts enables it, and through
  // its commands when they are run. oclif reads a plugin's hooks when it runs them, so emptying
  // them here, before it runs any, is enough.
  loadOptions = await Config.load(import.meta.url);
  for (const plugin of loadOptions.plugins.values()) if (plugin.type === 'user' || plugin.type === 'link') plugin.hooks = {};
}
await execute({ args, dir: import.meta.url, loadOptions });
