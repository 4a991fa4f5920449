import { OryxError, type SessionInfo, type SessionStore } from '@oryxos/kernel';

/** The session an id (or, with the sqlite store, a unique id prefix) names; a clear error otherwise. */
export async function resolveSession(store: SessionStore, id: string): Promise<SessionInfo> {
  const withPrefix = store as SessionStore & { resolve?(idOrPrefix: string): Promise<SessionInfo | undefined> };
  const info = withPrefix.resolve ? await withPrefix.resolve(id) : await store.get(id);
  if (!info) {
    throw new OryxError('ORYX_E_SESSION_NOT_FOUND', `No session "${id}"`, {
      hint: 'List sessions with `oryx sessions`; a prefix works when it matches exactly one id.',
    });
  }
  return info;
}
