import { OryxError } from '@oryxos/provider-spec';
import type { PluginContext } from '@oryxos/kernel';
import { asOryxError } from './errors.ts';

/**
 * Makes sure an agent exists (and loads) before a run starts, so a missing one is a 404 and not
 * an event in a stream already answered 200. The kernel keeps a loaded agent for its file cache's
 * 250 ms, so a busy agent costs no I/O here and the run that follows gets the same definition.
 * `field` names the request field for the error (`model` on /v1).
 */
export async function assertAgentExists(kernel: PluginContext, name: string, field?: string): Promise<void> {
  try {
    await kernel.agents.load(name);
  } catch (error) {
    const e = asOryxError(error);
    throw field ? new OryxError(e.code, e.message, { hint: e.hint, cause: e, data: { ...e.data, field } }) : e;
  }
}
