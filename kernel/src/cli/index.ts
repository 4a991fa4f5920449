export { OryxCommand, defaultPlugins, readStdin, DEFAULT_PLUGIN_PACKAGES } from './base.ts';
export { table } from './format.ts';
