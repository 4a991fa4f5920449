import type { Database, SqlValue } from '@oryxos/contracts';

/** Filters of the `oryx audit` commands. `session` matches an id or a prefix of one. */
export interface AuditFilter {
  session?: string;
  agent?: string;
  status?: string;
  tool?: string;
  limit?: number;
}

/** The audit's rows as stored (declared in @oryxos/contracts: readers reach them through the `audit` service). */
export type { LlmCallRow, ToolInvocationRow, ToolCallApproval } from '@oryxos/contracts';
import type { LlmCallRow, ToolInvocationRow, ToolCallApproval } from '@oryxos/contracts';

/** The stored prompt report: each section `[section, chars]`, every cut `[section, chars, reason]`, the estimated tokens. */
export interface PromptReportRow { in: [string, number][]; cut: [string, number, string][]; tokens: number }

/** The prompt report of a row, parsed; undefined when the row has none. */
export function promptReportOf(row: Pick<LlmCallRow, 'prompt_report'>): PromptReportRow | undefined {
  if (typeof row.prompt_report !== 'string') return undefined;
  try { return JSON.parse(row.prompt_report) as PromptReportRow; } catch { return undefined; }
}

/** One `llm_calls` row by id. */
export async function getLlmCall(db: Database, id: number): Promise<LlmCallRow | undefined> {
  return (await db.query<LlmCallRow>('SELECT * FROM llm_calls WHERE id = ?', [id]))[0];
}

/** A `sandbox_events` row, as stored. */
export interface SandboxEventRow {
  id: number; decision: 'allow' | 'deny' | 'ask'; kind: string; target: string; reason: string | null; origin: string | null; agent: string | null;
  session_id: string | null; run_id: string | null; tool_call_id: string | null; pid: number | null; process: string | null; created_at: string;
}

/** One session's totals (`oryx audit summary`). */
export interface SessionSummary {
  session_id: string; agent: string | null; llm_calls: number; input_tokens: number; output_tokens: number;
  /** Input tokens served from (written to) the provider's prompt cache; null when no call reported them. */
  cache_read_tokens: number | null; cache_write_tokens: number | null; llm_failures: number;
  tool_calls: number; tool_errors: number; denials: number; last_at: string;
}

function where(filter: AuditFilter, columns: { status?: boolean; tool?: boolean } = {}): { sql: string; params: SqlValue[] } {
  const parts: string[] = [];
  const params: SqlValue[] = [];
  if (filter.session) { parts.push('session_id >= ? AND session_id < ?'); params.push(filter.session, `${filter.session}\uffff`); }
  if (filter.agent) { parts.push('agent = ?'); params.push(filter.agent); }
  if (columns.status && filter.status) { parts.push('status = ?'); params.push(filter.status); }
  if (columns.tool && filter.tool) { parts.push('tool = ?'); params.push(filter.tool); }
  return { sql: parts.length ? `WHERE ${parts.join(' AND ')}` : '', params };
}

const limitOf = (filter: AuditFilter) => Math.max(1, Math.min(10_000, Math.floor(filter.limit ?? 50)));

/**
 * The newest `llm_calls` rows first.
 *
 * @example
 * const failed = await listLlmCalls(kernel.service('database'), { status: 'error', limit: 20 });
 */
export async function listLlmCalls(db: Database, filter: AuditFilter = {}): Promise<LlmCallRow[]> {
  const w = where(filter, { status: true });
  return db.query<LlmCallRow>(`SELECT * FROM llm_calls ${w.sql} ORDER BY id DESC LIMIT ?`, [...w.params, limitOf(filter)]);
}

/**
 * The newest `tool_invocations` rows first.
 *
 * @example
 * const denied = await listToolInvocations(db, { status: 'denied', session: '3f2a' });
 */
export async function listToolInvocations(db: Database, filter: AuditFilter = {}): Promise<ToolInvocationRow[]> {
  const w = where(filter, { status: true, tool: true });
  return db.query<ToolInvocationRow>(`SELECT * FROM tool_invocations ${w.sql} ORDER BY id DESC LIMIT ?`, [...w.params, limitOf(filter)]);
}

/** How a person decided a tool call that waited for approval. */
/** A decision's `sandbox_events` row, the columns {@link approvalsOf} reads. */
interface DecisionRow { session_id: string | null; run_id: string | null; tool_call_id: string; decision: 'allow' | 'deny'; origin: string }

/** The columns that name a tool call in both tables. */
type CallRef = Pick<ToolInvocationRow, 'session_id' | 'run_id' | 'tool_call_id'>;

// A person's decision is audited as a sandbox event whose origin is `approval <id> by <who>[: <reason>]`
// (a stored approval, decided anywhere) or `approval by <who>[: <reason>]` (decided in the
// process, at the terminal's prompt); the first `: ` ends the name. Both engines run this
// condition as it is.
const DECISIONS = `SELECT session_id, run_id, tool_call_id, decision, origin FROM sandbox_events
  WHERE tool_call_id IS NOT NULL AND decision IN ('allow', 'deny') AND (origin LIKE 'approval % by %' OR origin LIKE 'approval by %')`;
const DECIDED_BY = /^approval (?:\S+ )?by (.*?)(?:: ([\s\S]*))?$/;

/**
 * The approval decisions of these tool calls, keyed by {@link approvalKey} (calls nobody was
 * asked about are absent): the `sandbox_events` rows the kernel writes when a person decides.
 * A call is matched by its id within its session and run (providers reuse ids: across sessions,
 * and some in every response); the decision is audited in the run that then makes the call.
 *
 * @example
 * const rows = await listToolInvocations(db);
 * const approvals = await approvalsOf(db, rows);
 * approvals.get(approvalKey(rows[0])) // { decision: 'denied', by: 'alice', reason: 'not now' }
 */
export async function approvalsOf(db: Database, calls: readonly CallRef[]): Promise<Map<string, ToolCallApproval>> {
  const ids = [...new Set(calls.map((c) => c.tool_call_id).filter((id): id is string => !!id))];
  const out = new Map<string, ToolCallApproval>();
  // In slices, under the engines' limits on bound parameters.
  for (let i = 0; i < ids.length; i += 500) {
    const slice = ids.slice(i, i + 500);
    decisionsInto(out, await db.query<DecisionRow>(approvalsSql(slice.length), slice));
  }
  return out;
}

/**
 * The approval decisions of every tool call of one session's runs in one statement (the
 * session's trace), keyed by {@link approvalKey}: as {@link approvalsOf}, with the call ids
 * taken from `tool_invocations` by the database.
 */
export async function sessionApprovals(db: Database, sessionId: string, runIds: readonly string[]): Promise<Map<string, ToolCallApproval>> {
  return decisionsInto(new Map(), await db.query<DecisionRow>(sessionApprovalsSql(runIds.length), [sessionId, sessionId, ...runIds]));
}

/** The statement {@link approvalsOf} runs for `n` tool call ids (it finds them through `sandbox_events_by_call_session`). */
export function approvalsSql(n: number): string {
  return `${DECISIONS} AND tool_call_id IN (${marks(n)}) ORDER BY id`;
}

/** The statement {@link sessionApprovals} runs for `runs` run ids: session id twice, then the run ids (it seeks by call id and session). */
export function sessionApprovalsSql(runs: number): string {
  return `${DECISIONS} AND session_id = ? AND tool_call_id IN (
    SELECT tool_call_id FROM tool_invocations WHERE session_id = ? AND run_id IN (${marks(runs)}) AND tool_call_id IS NOT NULL) ORDER BY id`;
}

const marks = (n: number) => Array(n).fill('?').join(', ');

/** Rows oldest first, so the last decision on a call is the one kept. */
function decisionsInto(out: Map<string, ToolCallApproval>, rows: DecisionRow[]): Map<string, ToolCallApproval> {
  for (const r of rows) {
    const [, by = r.origin, reason] = DECIDED_BY.exec(r.origin) ?? [];
    out.set(approvalKey(r), { decision: r.decision === 'deny' ? 'denied' : 'approved', by, ...(reason ? { reason } : {}) });
  }
  return out;
}

/** The key of a tool call (a `tool_invocations` row) in {@link approvalsOf}'s map: its session, run and id. */
export function approvalKey(call: CallRef): string {
  return `${call.session_id ?? ''}\u0000${call.run_id ?? ''}\u0000${call.tool_call_id ?? ''}`;
}

/**
 * The newest `sandbox_events` rows first: denials that were not tool calls and connections of
 * confined processes. `status` filters by decision (`allow` | `deny` | `ask`: a tool call waits for a person).
 *
 * @example
 * const denied = await listSandboxEvents(db, { status: 'deny' });
 */
export async function listSandboxEvents(db: Database, filter: AuditFilter = {}): Promise<SandboxEventRow[]> {
  const w = where({ ...filter, status: undefined });
  const parts = w.sql ? [w.sql.slice('WHERE '.length)] : [];
  const params = [...w.params];
  if (filter.status) { parts.push('decision = ?'); params.push(filter.status); }
  const sql = parts.length ? `WHERE ${parts.join(' AND ')}` : '';
  return db.query<SandboxEventRow>(`SELECT * FROM sandbox_events ${sql} ORDER BY id DESC LIMIT ?`, [...params, limitOf(filter)]);
}

/**
 * One row per session: calls, tokens, failures, tool errors and denials; most recent first.
 *
 * @example
 * for (const s of await summarize(db, { limit: 10 })) console.log(s.session_id, s.llm_calls, s.llm_failures);
 */
export async function summarize(db: Database, filter: AuditFilter = {}): Promise<SessionSummary[]> {
  const w = where(filter);
  // Standard SQL both engines run: CASE sums instead of SQLite's boolean sums, IS NOT DISTINCT
  // FROM instead of IS, CASE instead of SQLite's two-argument MAX.
  const rows = await db.query<SessionSummary>(`
    WITH l AS (
      SELECT session_id, MAX(agent) AS agent, COUNT(*) AS llm_calls, COALESCE(SUM(input_tokens), 0) AS input_tokens,
        COALESCE(SUM(output_tokens), 0) AS output_tokens, SUM(cache_read_tokens) AS cache_read_tokens, SUM(cache_write_tokens) AS cache_write_tokens,
        SUM(CASE WHEN status = 'error' THEN 1 ELSE 0 END) AS llm_failures,
        MAX(created_at) AS last_at
      FROM llm_calls ${w.sql} GROUP BY session_id
    ), t AS (
      SELECT session_id, MAX(agent) AS agent, COUNT(*) AS tool_calls, SUM(CASE WHEN status = 'error' THEN 1 ELSE 0 END) AS tool_errors,
        SUM(CASE WHEN status = 'denied' THEN 1 ELSE 0 END) AS denials, MAX(created_at) AS last_at
      FROM tool_invocations ${w.sql} GROUP BY session_id
    ), ids AS (SELECT session_id FROM l UNION SELECT session_id FROM t)
    SELECT ids.session_id AS session_id, COALESCE(l.agent, t.agent) AS agent,
      COALESCE(l.llm_calls, 0) AS llm_calls, COALESCE(l.input_tokens, 0) AS input_tokens, COALESCE(l.output_tokens, 0) AS output_tokens,
      l.cache_read_tokens AS cache_read_tokens, l.cache_write_tokens AS cache_write_tokens, COALESCE(l.llm_failures, 0) AS llm_failures, COALESCE(t.tool_calls, 0) AS tool_calls, COALESCE(t.tool_errors, 0) AS tool_errors,
      COALESCE(t.denials, 0) AS denials,
      CASE WHEN COALESCE(l.last_at, '') >= COALESCE(t.last_at, '') THEN COALESCE(l.last_at, '') ELSE t.last_at END AS last_at
    FROM ids LEFT JOIN l ON l.session_id IS NOT DISTINCT FROM ids.session_id LEFT JOIN t ON t.session_id IS NOT DISTINCT FROM ids.session_id
    ORDER BY last_at DESC LIMIT ?`, [...w.params, ...w.params, limitOf(filter)]);
  return rows.map((r) => ({
    ...r,
    llm_calls: Number(r.llm_calls), input_tokens: Number(r.input_tokens), output_tokens: Number(r.output_tokens),
    cache_read_tokens: r.cache_read_tokens === null ? null : Number(r.cache_read_tokens), cache_write_tokens: r.cache_write_tokens === null ? null : Number(r.cache_write_tokens),
    llm_failures: Number(r.llm_failures), tool_calls: Number(r.tool_calls), tool_errors: Number(r.tool_errors), denials: Number(r.denials),
  }));
}
