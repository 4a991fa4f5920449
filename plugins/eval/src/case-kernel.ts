import { Kernel, type HostInfo, type Logger, type ResolvedConfig } from '@oryxos/kernel';
import type { Probe } from './probe.ts';
import type { Scratch } from './scratch.ts';

/** What a case's kernel is made of. */
export interface CaseKernelInput {
  /** The project's config (or a compared one): its plugins, settings and defaults. */
  base: ResolvedConfig;
  scratch: Scratch;
  probe: Probe;
  /**
   * The provider of agents that name none. The project's, or the only provider it enables: the
   * probe's providers make that "only one" rule ambiguous in the case's kernel.
   */
  defaultProvider?: string;
  logger?: Logger;
  host?: HostInfo;
}

/**
 * Starts the kernel a case runs on: the project's plugins (the same instances: each `setup`
 * keeps its state in its context), rooted at the case's copy of the project, plus the probe.
 * It neither serves (no web server, no scheduler) nor reads only. The one place a case's
 * kernel is made.
 *
 * @example
 * const kernel = await startCaseKernel({ base: config, scratch, probe });
 * try { await kernel.runs.process({ agent: 'assistant', message: 'hi' }); } finally { await kernel.close(); }
 */
export async function startCaseKernel(input: CaseKernelInput): Promise<Kernel> {
  const { base, scratch } = input;
  const config: ResolvedConfig = {
    ...base,
    plugins: [...base.plugins, input.probe],
    root: scratch.root,
    workspaceDir: scratch.workspaceDir,
    ...(input.defaultProvider ? { defaultProvider: input.defaultProvider } : {}),
    ...(scratch.configFile ? { file: scratch.configFile } : {}),
  };
  return new Kernel({ config, logger: input.logger, serving: false, ...(input.host ? { host: input.host } : {}) }).start();
}
