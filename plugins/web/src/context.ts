import type { PluginContext } from '@oryxos/kernel';
import type { ResolvedWebOptions } from './options.ts';
import type { Runner } from './runner.ts';

/** What the route modules share. */
export interface WebContext {
  kernel: PluginContext;
  options: ResolvedWebOptions;
  runner: Runner;
  /** The plugin's version, for `/api/info` and the OpenAPI document. */
  version: string;
  startedAt: number;
}
