/**
 * @oryxos/command-kit: what an `oryx` command needs, whichever package ships it — the base
 * command that finds `oryx.config.ts`, boots a kernel from it and prints errors as code,
 * message and hint ({@link OryxCommand}); the config file's discovery, trust checks and
 * compiled cache; `.env` loading; the installation's packages and versions; tables, the
 * `--json` list shape, short session ids and the agent list. Plugins with commands take it as a
 * peer (the installation provides it), so no plugin depends on the CLI package.
 *
 * @example
 * import { OryxCommand, table } from '@oryxos/command-kit';
 * export default class Hello extends OryxCommand {
 *   static summary = 'Say hello';
 *   static readOnly = true;
 *   async run() { const { kernel } = await this.boot(); this.log(table([['kernel', kernel.version]])); }
 * }
 */
export { OryxCommand, defaultPlugins, readStdin, DEFAULT_PLUGIN_PACKAGES, type BaseFlags } from './command.ts';
export { table, tokensText } from './format.ts';
export { loadDotEnv, DOT_ENV_FILES, type DotEnv } from './dot-env.ts';
export { loadConfig, precompileConfig, findConfigFile, assertConfigIsYours, CONFIG_FILE_NAMES, type LoadConfigOptions } from './config-file.ts';
export { ImportAliases, importAliases, packageEntries, findPackage } from './config-imports.ts';
export { installedPackages, pluginSources, versions, type InstalledPackage } from './installation.ts';
export { listJson, camelKeys, camelCase, type ListJson, type CamelKeys } from './json.ts';
export { resolveSessionId, MIN_PREFIX } from './session-id.ts';
export { listAgents, type AgentJson } from './agent-list.ts';
// The CLI's own commands and tests use these too: the config cache, its MAC and where it lives.
export { cacheKey, cacheLocation, compileConfig, importConfigCached, type CacheLocation, type ConfigCompiler } from './config-cache.ts';
export { hmacSha256, sha256 } from './hmac-sha256.ts';
export { userDirs } from './user-dirs.ts';
