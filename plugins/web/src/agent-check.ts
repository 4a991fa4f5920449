import { access } from 'node:fs/promises';
import path from 'node:path';
import { OryxError, type PluginContext } from '@oryxos/kernel';
import { asOryxError } from './errors.ts';

/**
 * Makes sure an agent exists before a run starts, so a missing one is a 404 and not an event
 * in a stream already answered 200. The usual case costs one `access()`; only a missing agent
 * pays for the kernel's full load, whose error (with the known agents) is the one thrown.
 * `field` names the request field for the error (`model` on /v1).
 */
export async function assertAgentExists(kernel: PluginContext, name: string, field?: string): Promise<void> {
  if (/^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/.test(name)) {
    try {
      await access(path.join(kernel.agents.agentsDir, name, 'AGENT.md'));
      return;
    } catch { /* fall through to the kernel's error */ }
  }
  try {
    await kernel.agents.load(name);
  } catch (error) {
    const e = asOryxError(error);
    throw field ? new OryxError(e.code, e.message, { hint: e.hint, cause: e, data: { ...e.data, field } }) : e;
  }
}
