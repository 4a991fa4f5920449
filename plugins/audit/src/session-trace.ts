import type { Database, SessionTraceRows, TracedToolInvocation } from '@oryxos/contracts';
import { approvalKey, sessionApprovals, type LlmCallRow, type ToolInvocationRow } from './queries.ts';

export type { SessionTraceRows, TracedToolInvocation };

/**
 * The audit rows of a session's last `runs` runs (default 20, at most 100), each table oldest
 * first: what the web console draws as a timeline. A run is found by its first model call or
 * tool call, so a run that was aborted before either has no rows and is not listed. Each tool call
 * carries who approved or denied it when it waited for a person (three statements in all,
 * however many calls).
 *
 * @example
 * const { runs, llmCalls, toolInvocations } = await sessionTrace(kernel.service('database'), sessionId, { runs: 5 });
 */
export async function sessionTrace(db: Database, sessionId: string, options: { runs?: number } = {}): Promise<SessionTraceRows> {
  const wanted = Math.max(1, Math.min(100, Math.floor(options.runs ?? 20)));
  // A run of a door's own call (an MCP client calling an exposed tool) calls no model: its tool row finds it.
  const found = await db.query<{ run_id: string }>(
    `SELECT run_id FROM (
       SELECT run_id, created_at FROM llm_calls WHERE session_id = ? AND run_id IS NOT NULL
       UNION ALL SELECT run_id, created_at FROM tool_invocations WHERE session_id = ? AND run_id IS NOT NULL
     ) AS trail GROUP BY run_id ORDER BY MIN(created_at) DESC LIMIT ?`,
    [sessionId, sessionId, wanted + 1],
  );
  const runs = found.slice(0, wanted).map((r) => r.run_id).reverse();
  if (runs.length === 0) return { runs, llmCalls: [], toolInvocations: [], moreRuns: false };
  const marks = runs.map(() => '?').join(', ');
  const params = [sessionId, ...runs];
  const [llmCalls, tools, approvals] = await Promise.all([
    db.query<LlmCallRow>(`SELECT * FROM llm_calls WHERE session_id = ? AND run_id IN (${marks}) ORDER BY id`, params),
    db.query<ToolInvocationRow>(`SELECT * FROM tool_invocations WHERE session_id = ? AND run_id IN (${marks}) ORDER BY id`, params),
    sessionApprovals(db, sessionId, runs),
  ]);
  const toolInvocations = tools.map((r) => ({ ...r, approval: approvals.get(approvalKey(r)) ?? null }));
  return { runs, llmCalls, toolInvocations, moreRuns: found.length > wanted };
}
