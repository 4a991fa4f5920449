import type { PluginContext } from '@oryxos/kernel';
import type { Approval as StoredApproval, ApprovalStatus, ApprovalStore } from '@oryxos/contracts';
import { shape as s } from '@oryxos/schema-kit';
import { answerOf, sseEvents, sseUsage } from './api-routes.ts';
import type { WebContext } from './context.ts';
import { asOryxError, errorBody, webError } from './errors.ts';
import { requestIdOf } from './request-log.ts';
import { abortedError, runError } from './run-result.ts';
import { sseResponse } from './sse.ts';
import { identityOf } from './principal.ts';
import type { RouteTable } from './routes.ts';
import { ErrorResponse, RunResponse, SESSION_ID, anyObject, closed, limit, open } from './schemas.ts';
import { listJson } from '@oryxos/command-kit';
import { clientSignalOf, headerOf } from './incoming.ts';
import { originOf } from './origin.ts';

const err = (description: string) => ({ description, schema: ErrorResponse });

const STATUSES = ['pending', 'approved', 'used', 'denied', 'expired'] as const;
const status = s.literal(...STATUSES);
const approvalProps = {
  id: s.string(), runId: s.string(), sessionId: s.string(), agent: s.string(), tool: s.string(), toolCallId: s.string(), args: anyObject,
  asks: s.array(open({ action: anyObject.optional(), reason: s.string() })), status, requestedAt: s.string(), decidedBy: s.string().optional(),
  argsHash: s.string(), decidedAt: s.string().optional(), reason: s.string().optional(), expiresAt: s.string().optional(), usedAt: s.string().optional(),
  diff: s.string().optional(),
};
export const Approval = open(approvalProps);
export const ApprovalList = open({ items: s.array(Approval) });
export const ApprovalsQuery = closed({
  status: s.literal(...STATUSES, 'all').optional(), session: s.string({ pattern: SESSION_ID }).optional(),
  limit: limit(1000).optional(), diff: s.literal('true', 'false').optional(),
});
export const DecisionBody = closed({ decision: s.literal('approve', 'deny'), reason: s.string({ max: 2000 }).optional() });
export const Decided = open({ ...approvalProps, run: RunResponse.optional() });

/** The `approvals` service, or a 404 naming the plugin to enable. */
export function approvalsOf(kernel: Pick<PluginContext, 'service' | 'hasService'>): ApprovalStore {
  if (!kernel.hasService('approvals')) {
    throw webError('ORYX_E_WEB_NO_APPROVALS', 'No approvals service is enabled, so no tool call can wait for a person here');
  }
  return kernel.service('approvals');
}

/**
 * A pending approval with what its call would change: the unified diff of a `write_file` /
 * `edit_file` against the file as it is now (as the terminal's question shows it), for a path
 * inside the project only. A decided one has none: the file has moved on since.
 */
async function withDiff(a: StoredApproval, root: string): Promise<StoredApproval & { diff?: string }> {
  if (a.status !== 'pending') return a;
  const { proposedDiff } = await import('@oryxos/diff-kit');
  const diff = await proposedDiff({ tool: a.tool, args: a.args }, root, { insideRoot: true });
  return diff === undefined ? a : { ...a, diff };
}

/**
 * `/api/approvals`: tool calls waiting for a person, and deciding them. Any token the server
 * accepts may decide (as any may use any session); the decision is recorded under the token's
 * identity.
 */
export function registerApprovalRoutes(routes: RouteTable, ctx: WebContext): void {
  const { kernel, runner, options } = ctx;

  routes.add({
    method: 'get', path: '/api/approvals', tag: 'approvals', query: ApprovalsQuery,
    summary: 'Approvals, newest first: ?status=pending (the default) | approved | denied | expired | all, ?session=ID, ?limit=N (default 50), '
      + '?diff=false to leave out the diffs (a client that only counts them).',
    description: 'The same rows `oryx approvals --json` prints, from every process on the database; a pending write_file or edit_file '
      + 'call of a file inside the project has `diff`, the unified diff of what it would change (as the terminal shows it). '
      + 'Without the approvals plugin nothing can wait, and the list is empty.',
    responses: {
      200: { description: 'The approvals', schema: ApprovalList },
      400: err('Bad query parameter'), 401: err('Missing or wrong token'),
    },
  }, async (c, { query }) => {
    if (!kernel.hasService('approvals')) return c.json(listJson([]));
    const status = query.status ?? 'pending';
    const items = await approvalsOf(kernel).list({
      ...(status === 'all' ? {} : { status: status as ApprovalStatus }), ...(query.session ? { sessionId: query.session } : {}), limit: query.limit ?? 50,
    });
    if (query.diff === 'false') return c.json(listJson(items));
    return c.json(listJson(await Promise.all(items.map((a) => withDiff(a, kernel.config.root)))));
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
    return c.json(await withDiff(found, kernel.config.root));
  });

  routes.add({
    method: 'post', path: '/api/approvals/:id', tag: 'approvals', params: { id: 'Approval id' }, body: DecisionBody,
    summary: 'Decides a pending approval: {"decision": "approve" | "deny", "reason"?}, recorded as decided by the token\'s identity; '
      + 'then the run goes on in this server and the answer is the approval with `run`, its result (as POST /api/sessions/:id/messages '
      + 'answers). With Accept: text/event-stream, the resumed run\'s events stream, ending with `done` {…approval, run} or `error`.',
    description: 'Deciding is atomic across processes: of two deciders one wins, the other gets 409 ORYX_E_APPROVAL_DECIDED naming '
      + 'who decided; a decision after the approval expired gets 409 ORYX_E_APPROVAL_EXPIRED. The approved call runs with exactly the '
      + 'approved actions; a denial\'s reason reaches the model. The decision stands even when the run cannot go on '
      + '(409 ORYX_E_APPROVAL_NOT_RESUMABLE: a new message came first) or is cut short (504 past invokeTimeoutMs).',
    responses: {
      200: { description: 'The approval as decided, with the resumed run\'s result (or the event stream)', schema: Decided },
      400: err('Bad body'), 401: err('Missing or wrong token'), 404: err('No such approval, or no approvals service'),
      409: err('Already decided (ORYX_E_APPROVAL_DECIDED), expired (ORYX_E_APPROVAL_EXPIRED), or its run cannot go on (ORYX_E_APPROVAL_NOT_RESUMABLE)'),
      504: err('The resumed run took longer than invokeTimeoutMs'),
    },
  }, async (c, { body }) => {
    const decided = await approvalsOf(kernel).decide(c.req.param('id')!, {
      decision: body.decision, by: identityOf(c).name, ...(body.reason ? { reason: body.reason } : {}),
    });
    const run = { agent: decided.agent, session: decided.sessionId, message: '', continue: decided.runId, origin: originOf(c) };
    if (!(headerOf(c, 'accept') ?? '').includes('text/event-stream')) {
      const outcome = await runner.invoke({ ...run, stream: false, clientSignal: clientSignalOf(c) });
      if (outcome.aborted) throw abortedError(outcome.aborted, options.invokeTimeoutMs);
      return c.json({ ...decided, run: answerOf(outcome.result!) });
    }
    return sseResponse(c, async (channel) => {
      const outcome = await runner.invoke({ ...run, stream: true, clientSignal: channel.clientSignal, onEvent: sseEvents(channel), onUsage: sseUsage(channel) });
      if (outcome.aborted) {
        if (outcome.aborted !== 'disconnect') channel.send('error', errorBody(abortedError(outcome.aborted, options.invokeTimeoutMs)).error);
        return;
      }
      const result = outcome.result!;
      if (result.stopReason === 'error') channel.send('error', errorBody(runError(result)).error);
      else channel.send('done', { ...decided, run: answerOf(result) });
    }, {
      onError(error, channel) {
        const e = asOryxError(error);
        kernel.log.warn(`${requestIdOf(c)} resumed stream failed: ${e.code} ${e.message}`);
        channel.send('error', errorBody(e).error);
      },
    });
  });
}
