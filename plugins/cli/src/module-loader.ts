/** `@oryxos/plugin-cli/module-loader` (bin/run.js): the command kit's loader of command and config modules. */
export { loadModule, moduleHooks } from '@oryxos/command-kit/module-loader';
