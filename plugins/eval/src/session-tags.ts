import type { SessionInfo, SessionStore } from '@oryxos/contracts';

/** The tags of a case's session: every eval session, this case's, and this `oryx eval`'s. */
export function evalTags(input: { agent: string; caseName: string; evalRun: string }): string[] {
  return ['eval', `eval:${input.agent}/${input.caseName}`, `eval-run:${input.evalRun}`];
}

/**
 * Creates the session a case runs in, tagged with the eval. The session stores are gaining
 * `tags` (`@oryxos/contracts` SessionStore.create already declares them); a store without them
 * takes the extra key and ignores it, so the title names the eval too (`eval assistant/reads-readme`),
 * which `oryx sessions` shows either way. The one place that knows, so it goes when the stores
 * have them.
 *
 * @example
 * const session = await createEvalSession(kernel.service('sessions'), { agent: 'assistant', title: 'eval assistant/x', tags: ['eval'] });
 */
export async function createEvalSession(store: SessionStore, input: { agent: string; title: string; tags: string[] }): Promise<SessionInfo> {
  const create = store.create.bind(store) as (input: { agent: string; title: string; tags: string[] }) => Promise<SessionInfo>;
  return create(input);
}
