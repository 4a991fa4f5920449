import type { Kernel } from '@oryxos/kernel';
import type { ResolvedWebOptions } from './options.ts';
import type { Runner } from './runner.ts';

/** What the route modules share. */
export interface WebContext {
  kernel: Kernel;
  options: ResolvedWebOptions;
  runner: Runner;
  /** The plugin's version, for `/api/info` and the OpenAPI document. */
  version: string;
  startedAt: number;
}
