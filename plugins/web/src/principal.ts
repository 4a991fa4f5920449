import type { Context } from 'hono';
import { OPERATOR, type WebIdentity } from './auth.ts';
import { webError } from './errors.ts';
import type { WebEnv } from './request-log.ts';
import { USER_NAME } from './schemas.ts';
import { headerOf } from './incoming.ts';

/** Who a request comes from, as the auth middleware established it (see `auth.ts`). */
export type Identity = WebIdentity;

/**
 * The identity of a request: the one the auth middleware put on the context. `/health` is
 * the only route it does not cover, and no run starts there; the operator stands in.
 */
export function identityOf(c: Context<WebEnv>): Identity {
  return c.get('identity') ?? OPERATOR;
}

function checkName(value: string, field: string): void {
  if (!USER_NAME.test(value)) {
    throw webError('ORYX_E_WEB_BAD_REQUEST', `${field} must be 1 to 128 letters, digits or ._:@+- (was ${JSON.stringify(value.slice(0, 40))})`, { field });
  }
}

/**
 * The user a run acts for (its principal): the user the request names (the `/v1` `user`
 * field, or the `x-oryx-user` header) when its identity may name users, else the identity's
 * own name. A request whose identity may not name users is refused (403) when its header
 * names someone else; its `/v1` `user` field then only keys the session, as in OpenAI's API.
 *
 * @example
 * const user = principalOf(c, body.user); // 'ana' for { user: 'ana' } from the operator's token
 */
export function principalOf(c: Context, bodyUser?: string): string {
  const identity = identityOf(c);
  const header = headerOf(c, 'x-oryx-user');
  if (header !== undefined) checkName(header, 'x-oryx-user');
  if (!identity.namesUsers) {
    if (header !== undefined && header !== identity.name) {
      throw webError('ORYX_E_WEB_USER_FORBIDDEN', `This token (${identity.name}) may not act for user "${header}"`, { field: 'x-oryx-user' });
    }
    return identity.name;
  }
  if (bodyUser !== undefined && header !== undefined && bodyUser !== header) {
    throw webError('ORYX_E_WEB_BAD_REQUEST', `The user field ("${bodyUser}") and the x-oryx-user header ("${header}") name different users`, { field: 'user' });
  }
  return bodyUser ?? header ?? identity.name;
}

/**
 * The user whose memory `GET /api/agents/:name/memory?user=U` may show: any user for an
 * identity that may name users, else only the identity's own (403 for anyone else's).
 */
export function memoryUserOf(c: Context, wanted: string): string {
  const identity = identityOf(c);
  if (!identity.namesUsers && wanted !== identity.name) {
    throw webError('ORYX_E_WEB_USER_FORBIDDEN', `This token (${identity.name}) may not read the memory of user "${wanted}"`, { field: 'user' });
  }
  return wanted;
}
