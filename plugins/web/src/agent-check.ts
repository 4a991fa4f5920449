import { access } from 'node:fs/promises';
import path from 'node:path';
import { OryxError, type PluginContext } from '@oryxos/kernel';
import { asOryxError } from './errors.ts';

/** How long an AGENT.md seen to exist is trusted: the kernel's file cache trusts a read as long. */
const RECHECK_MS = 250;

/** Per kernel and agent name: when its AGENT.md was last seen to exist, or the check in flight. */
const seen = new WeakMap<PluginContext, Map<string, number | Promise<boolean>>>();

/**
 * Makes sure an agent exists before a run starts, so a missing one is a 404 and not an event
 * in a stream already answered 200. The usual case costs nothing: an AGENT.md seen within the
 * kernel's file-cache window (250 ms, the same delay hot reload has) is trusted, else one
 * `access()` checks it, shared by the requests that arrive meanwhile. Only a missing agent pays
 * for the kernel's full load, whose error (with the known agents) is the one thrown. An agent
 * deleted inside the window fails in its run instead, with the same error. `field` names the
 * request field for the error (`model` on /v1).
 */
export async function assertAgentExists(kernel: PluginContext, name: string, field?: string): Promise<void> {
  if (/^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/.test(name) && await fileExists(kernel, name)) return;
  try {
    await kernel.agents.load(name);
  } catch (error) {
    const e = asOryxError(error);
    throw field ? new OryxError(e.code, e.message, { hint: e.hint, cause: e, data: { ...e.data, field } }) : e;
  }
}

function fileExists(kernel: PluginContext, name: string): boolean | Promise<boolean> {
  let known = seen.get(kernel);
  if (!known) seen.set(kernel, (known = new Map()));
  const state = known.get(name);
  if (typeof state === 'number' && performance.now() - state < RECHECK_MS) return true;
  if (state instanceof Promise) return state;
  const started = performance.now();
  const check = access(path.join(kernel.agents.agentsDir, name, 'AGENT.md')).then(() => true, () => false);
  if (known.size > 1000) known.clear(); // names come from requests: keep the map small
  known.set(name, check);
  void check.then((exists) => { if (exists) known.set(name, started); else known.delete(name); });
  return check;
}
