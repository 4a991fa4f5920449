#!/usr/bin/env node
// The `oryx` command. `oryx --version` is `oryx version` (the CLI, the kernel and every
// package with its version). When plugins were added with `oryx plugins install` or `link`,
// their imports of the packages OryxOS provides to plugins resolve to this installation's
// copies (host-modules.js), so a process holds one kernel and one @oclif/core.
import { Config, execute } from '@oclif/core';

const args = process.argv.slice(2);
if (args[0] === '--version' || args[0] === '-v') args[0] = 'version';
const config = await Config.load(import.meta.url);
if ([...config.plugins.values()].some((p) => p.type === 'user' || p.type === 'link')) {
  const { register } = await import('node:module');
  register('./host-modules.js', import.meta.url);
}
await execute({ args, loadOptions: config });
