import { shape as s } from '@oryxos/schema-kit';
import { mustGetSession } from './api-routes.ts';
import type { WebContext } from './context.ts';
import type { RouteTable } from './routes.ts';
import { ErrorResponse, limit, open, orNull } from './schemas.ts';
import { shapeTrace, traceSource } from './trace.ts';

const err = (description: string) => ({ description, schema: ErrorResponse });

const num = s.number;
const str = s.string;
export const TraceQuery = open({ runs: limit(100).optional() });

const totals = open({
  llmCalls: num(), llmErrors: num(), retries: num(), inputTokens: num(), outputTokens: num(), llmMs: num(), cacheReadTokens: num().optional(),
  toolCalls: num(), toolErrors: num(), denied: num(), toolMs: num(),
});
const llmEntry = open({
  kind: s.literal('llm'), startedAt: str(), offsetMs: num(), durationMs: num(), iteration: num(), attempt: num(),
  provider: str().optional(), model: str().optional(), inputTokens: num().optional(), outputTokens: num().optional(), cacheReadTokens: num().optional(),
  finishReason: str().optional(), status: s.literal('ok', 'error'), errorCode: str().optional(), error: str().optional(), retried: s.boolean(),
});
const toolEntry = open({
  kind: s.literal('tool'), startedAt: str(), offsetMs: num(), durationMs: num(), iteration: num(), toolCallId: str().optional(), tool: str(),
  source: str().optional(), status: s.literal('ok', 'error', 'denied'), deniedReason: str().optional(), inputChars: num().optional(), outputChars: num().optional(),
  approval: orNull(open({ decision: s.literal('approved', 'denied'), by: str(), reason: str().optional() })),
});
export const TraceResponse = open({
  sessionId: str(), agent: str(), moreRuns: s.boolean(), totals,
  runs: s.array(open({
    runId: str(), agent: str().optional(), startedAt: str(), endedAt: str(), durationMs: num(), totals,
    entries: s.array(s.union(llmEntry, toolEntry)),
  })),
});
export const StopResponse = open({ sessionId: str(), stopped: num() });

/**
 * Routes about a session's runs, for the console and any other client: the run timeline from
 * the audit trail, and stopping the runs going on.
 */
export function registerRunRoutes(routes: RouteTable, ctx: WebContext): void {
  const { kernel, runner } = ctx;

  routes.add({
    method: 'get', path: '/api/sessions/:id/trace', tag: 'sessions', query: TraceQuery,
    params: { id: 'Session id' },
    summary: "The session's last runs (runs, default 20, at most 100) as timelines from the audit trail: each model call "
      + '(model, latency, tokens in and out, attempt, error) and each tool call (name, duration, status ok, error or denied, '
      + 'the denial reason, and who approved or denied it when it waited for a person), placed by offset from the start of its run, with totals per run and overall.',
    description: 'Needs the audit plugin. A run aborted before it called the model has no audit rows and is not listed.',
    responses: {
      200: { description: 'The runs, oldest first', schema: TraceResponse },
      400: err('Bad query parameter'), 401: err('Missing or wrong token'),
      404: err('Unknown session (ORYX_E_SESSION_NOT_FOUND), or no audit trail enabled (ORYX_E_WEB_NO_AUDIT)'),
    },
  }, async (c, { query }) => {
    const found = await mustGetSession(ctx, c.req.param('id')!);
    const rows = await traceSource(kernel).sessionTrace(found.id, { runs: query.runs ?? 20 });
    return c.json(shapeTrace(found, rows));
  });

  routes.add({
    method: 'post', path: '/api/sessions/:id/stop', tag: 'sessions',
    params: { id: 'Session id' },
    summary: 'Stops the runs of the session going on in this server (running or queued) and answers once they have ended.',
    description: 'Their clients get 409 ORYX_E_WEB_STOPPED (an `error` event when streaming); the session keeps every step '
      + 'committed before the stop (a tool call cut short gets its error result), so the next message runs normally. '
      + 'Runs of the session in other processes are not stopped. No body is read.',
    responses: {
      200: { description: 'How many runs were stopped (0 when none was going on)', schema: StopResponse },
      401: err('Missing or wrong token'), 404: err('Unknown session'),
    },
  }, async (c) => {
    const found = await mustGetSession(ctx, c.req.param('id')!);
    runner.abortSession(found.id, 'stopped');
    // Also the session's runs from other doors of this process; resolves once every one has ended.
    const stopped = await kernel.runs.abortSession(found.id, 'stopped');
    return c.json({ sessionId: found.id, stopped });
  });
}
