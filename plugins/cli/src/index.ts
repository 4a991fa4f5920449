/**
 * The terminal channel of OryxOS: `oryx init`, `run`, `chat`, `agents`, `tools`, `doctor`,
 * `version` and the `plugins` commands, as oclif commands on the kernel's AgentService; and the
 * host side every command shares, whichever package it comes from: {@link OryxCommand} (boots
 * a kernel from `oryx.config.ts`), finding and running the config file, the installation's
 * packages and versions, the `--json` shapes and short session ids.
 */
export { OryxCommand, defaultPlugins, readStdin, DEFAULT_PLUGIN_PACKAGES, type BaseFlags } from '@oryxos/command-kit';
export { table } from '@oryxos/command-kit';
export { loadDotEnv, DOT_ENV_FILES, type DotEnv } from '@oryxos/command-kit';
export { loadConfig, precompileConfig, findConfigFile, assertConfigIsYours, CONFIG_FILE_NAMES, type LoadConfigOptions } from '@oryxos/command-kit';
export { ImportAliases, importAliases, packageEntries, findPackage } from '@oryxos/command-kit';
export { installedPackages, pluginSources, versions, type InstalledPackage } from '@oryxos/command-kit';
export { scaffold } from './scaffold.ts';
export { ERROR_CODES } from './errors.ts';
export { listJson, camelKeys, camelCase, type ListJson, type CamelKeys } from '@oryxos/command-kit';
export { resolveSessionId, MIN_PREFIX } from '@oryxos/command-kit';
export { listAgents, type AgentJson } from '@oryxos/command-kit';
