/**
 * The terminal channel of OryxOS: `oryx init`, `run`, `chat`, `agents`, `tools`, `doctor`,
 * `version` and the `plugins` commands, as oclif commands on the kernel's AgentService; and the
 * host side every command shares, whichever package it comes from: {@link OryxCommand} (boots
 * a kernel from `oryx.config.ts`), finding and running the config file, the installation's
 * packages and versions, the `--json` shapes and short session ids.
 */
export { OryxCommand, defaultPlugins, readStdin, DEFAULT_PLUGIN_PACKAGES, type BaseFlags } from './command.ts';
export { table } from './format.ts';
export { loadDotEnv, DOT_ENV_FILES, type DotEnv } from './dot-env.ts';
export { loadConfig, precompileConfig, findConfigFile, assertConfigIsYours, CONFIG_FILE_NAMES, type LoadConfigOptions } from './config-file.ts';
export { ImportAliases, importAliases, packageEntries, findPackage } from './config-imports.ts';
export { installedPackages, pluginSources, versions, type InstalledPackage } from './installation.ts';
export { scaffold } from './scaffold.ts';
export { ERROR_CODES } from './errors.ts';
export { listJson, camelKeys, camelCase, type ListJson, type CamelKeys } from './json.ts';
export { resolveSessionId, MIN_PREFIX } from './session-id.ts';
export { listAgents, type AgentJson } from './agent-list.ts';
