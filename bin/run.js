#!/usr/bin/env node
// The `oryx` command. `oryx --version` is `oryx version` (the CLI, the kernel and every
// package with its version). When plugins were added with `oryx plugins install` or `link`,
// their imports of the packages OryxOS provides to plugins resolve to this installation's
// copies (host-modules.js), so a process holds one kernel and one @oclif/core. The hooks go in
// before oclif loads anything, since it may import a plugin's commands while it starts.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { execute, settings } from '@oclif/core';

const args = process.argv.slice(2);
if (args[0] === '--version' || args[0] === '-v') args[0] = 'version';

// Where oclif keeps the plugins a user adds: $ORYX_DATA_DIR, else <data home>/<oclif.dirname>.
const { oclif } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const dataHome = process.env.XDG_DATA_HOME || (process.platform === 'win32' && process.env.LOCALAPPDATA) || path.join(process.env.HOME || homedir(), '.local', 'share');
const plugins = path.join(process.env.ORYX_DATA_DIR || path.join(dataHome, oclif.dirname), 'package.json');
if (existsSync(plugins) && JSON.parse(readFileSync(plugins, 'utf8')).oclif?.plugins?.length) {
  const { register } = await import('node:module');
  register('./host-modules.js', import.meta.url);
  globalThis[Symbol.for('oryxos.hostModules')] = true; // `oryx plugins install` registers them otherwise
}
// Plugins run as built JavaScript: oclif must not try to transpile a linked plugin's TypeScript
// (it cannot for ESM, and says so on every command).
settings.enableAutoTranspile = false;
await execute({ args, dir: import.meta.url });
