/**
 * `@oryxos/plugin-cli/command`: kept for plugins written against it before the command kit;
 * the base command and its helpers live in `@oryxos/command-kit`, which new plugins import.
 */
export { OryxCommand, readStdin, table, listJson, camelKeys, type BaseFlags, type ListJson, type CamelKeys } from '@oryxos/command-kit';
