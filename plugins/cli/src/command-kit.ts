/**
 * What a plugin's oclif command needs of the CLI (`@oryxos/plugin-cli/command`): the base
 * command that boots a kernel, the table and `--json` helpers. A command importing this path
 * loads only that, not the rest of the package's index (scaffolding, session ids, agent lists;
 * five module files, ~2 ms of `oryx sessions`). Everything here is also exported from the index.
 */
export { OryxCommand, readStdin, type BaseFlags } from './command.ts';
export { table } from './format.ts';
export { listJson, camelKeys, type ListJson, type CamelKeys } from './json.ts';
