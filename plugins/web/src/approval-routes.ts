import type { PluginContext } from '@oryxos/kernel';
import type { ApprovalStatus, ApprovalStore } from '@oryxos/plugin-kit';
import { type } from 'arktype';
import type { WebContext } from './context.ts';
import { webError } from './errors.ts';
import { lazyType } from './lazy-type.ts';
import { identityOf } from './principal.ts';
import type { RouteTable } from './routes.ts';
import { ErrorResponse, SESSION_ID, limit } from './schemas.ts';
import { listJson } from '@oryxos/plugin-cli';

const err = (description: string) => ({ description, schema: ErrorResponse });

/** The types of these routes, built on the first request or document (see {@link lazyType}). */
function build() {
  const status = "'pending' | 'approved' | 'denied' | 'expired'";
  const Approval = type({
    id: 'string', runId: 'string', sessionId: 'string', agent: 'string', tool: 'string', toolCallId: 'string', args: 'object',
    asks: type({ 'action?': 'object', reason: 'string' }).array(), status, requestedAt: 'string', 'decidedBy?': 'string',
    'decidedAt?': 'string', 'reason?': 'string', 'expiresAt?': 'string', 'resume?': 'object',
  });
  const ApprovalsQuery = type({ 'status?': `${status} | 'all'`, 'session?': type(SESSION_ID), 'limit?': limit(1000), '+': 'reject' });
  const DecisionBody = type({ decision: "'approve' | 'deny'", 'reason?': 'string <= 2000', '+': 'reject' });
  return { Approval, ApprovalList: type({ items: Approval.array() }), ApprovalsQuery, DecisionBody };
}

let built: ReturnType<typeof build> | undefined;
const all = () => (built ??= build());

export const Approval = lazyType(() => all().Approval);
export const ApprovalList = lazyType(() => all().ApprovalList);
export const ApprovalsQuery = lazyType(() => all().ApprovalsQuery);
export const DecisionBody = lazyType(() => all().DecisionBody);

/** The `approvals` service, or a 404 naming the plugin to enable. */
export function approvalsOf(kernel: Pick<PluginContext, 'service' | 'hasService'>): ApprovalStore {
  if (!kernel.hasService('approvals')) {
    throw webError('ORYX_E_WEB_NO_APPROVALS', 'No approvals service is enabled, so no tool call can wait for a person here');
  }
  return kernel.service('approvals');
}

/**
 * `/api/approvals`: tool calls waiting for a person, and deciding them. Any token the server
 * accepts may decide (as any may use any session); the decision is recorded under the token's
 * identity.
 */
export function registerApprovalRoutes(routes: RouteTable, ctx: WebContext): void {
  const { kernel } = ctx;

  routes.add({
    method: 'get', path: '/api/approvals', tag: 'approvals', query: ApprovalsQuery,
    summary: 'Approvals, newest first: ?status=pending (the default) | approved | denied | expired | all, ?session=ID, ?limit=N (default 50).',
    description: 'The same rows `oryx approvals --json` prints, from every process on the database.',
    responses: {
      200: { description: 'The approvals', schema: ApprovalList },
      400: err('Bad query parameter'), 401: err('Missing or wrong token'), 404: err('No approvals service (ORYX_E_WEB_NO_APPROVALS)'),
    },
  }, async (c, { query }) => {
    const status = query.status ?? 'pending';
    const items = await approvalsOf(kernel).list({
      ...(status === 'all' ? {} : { status: status as ApprovalStatus }), ...(query.session ? { sessionId: query.session } : {}), limit: query.limit ?? 50,
    });
    return c.json(listJson(items));
  });

  routes.add({
    method: 'get', path: '/api/approvals/:id', tag: 'approvals', params: { id: 'Approval id' },
    summary: 'One approval: the tool call, its arguments, what asks and why, and its decision when there is one.',
    responses: {
      200: { description: 'The approval', schema: Approval },
      401: err('Missing or wrong token'), 404: err('No such approval (ORYX_E_APPROVAL_NOT_FOUND), or no approvals service'),
    },
  }, async (c) => {
    const id = c.req.param('id')!;
    const found = await approvalsOf(kernel).get(id);
    if (!found) throw webError('ORYX_E_WEB_NOT_FOUND', `No approval "${id}"`, { hint: 'List approvals with GET /api/approvals?status=all.' });
    return c.json(found);
  });

  routes.add({
    method: 'post', path: '/api/approvals/:id', tag: 'approvals', params: { id: 'Approval id' }, body: DecisionBody,
    summary: 'Decides a pending approval: {"decision": "approve" | "deny", "reason"?}. Recorded as decided by the token\'s identity.',
    description: 'Deciding is atomic across processes: of two deciders one wins, the other gets 409 ORYX_E_APPROVAL_DECIDED naming '
      + 'who decided; a decision after the approval expired gets 409 ORYX_E_APPROVAL_EXPIRED. A denial\'s reason reaches the model.',
    responses: {
      200: { description: 'The approval as decided', schema: Approval },
      400: err('Bad body'), 401: err('Missing or wrong token'), 404: err('No such approval, or no approvals service'),
      409: err('Already decided (ORYX_E_APPROVAL_DECIDED) or expired (ORYX_E_APPROVAL_EXPIRED)'),
    },
  }, async (c, { body }) => {
    const decided = await approvalsOf(kernel).decide(c.req.param('id')!, {
      decision: body.decision, by: identityOf(c).name, ...(body.reason ? { reason: body.reason } : {}),
    });
    return c.json(decided);
  });
}
