import type { AuditLog } from '@oryxos/contracts';
import type { PluginContext } from '@oryxos/kernel';
import { webError } from './errors.ts';
import type { LlmEntry, SessionTrace, ToolEntry, TraceApproval, TraceRun, TraceTotals } from './trace-types.ts';

export type { LlmEntry, SessionTrace, ToolEntry, TraceApproval, TraceRun, TraceTotals } from './trace-types.ts';

// The run timeline of a session, from the audit trail. The web plugin reaches the rows through
// the `audit` service (never by importing the audit plugin); these are the columns it reads.

/** An `llm_calls` row, the columns the timeline reads. */
export interface LlmCallRecord {
  id: number; run_id: string | null; agent: string | null; iteration: number | null; attempt: number; provider: string | null;
  model: string | null; input_tokens: number | null; output_tokens: number | null; latency_ms: number | null; finish_reason: string | null;
  /** Absent from an audit plugin older than the column. */
  cache_read_tokens?: number | null;
  status: string; error_code: string | null; error: string | null; retried: number | null; created_at: string;
}

/** A `tool_invocations` row, the columns the timeline reads. */
export interface ToolInvocationRecord {
  id: number; run_id: string | null; iteration: number | null; tool_call_id: string | null; tool: string; source: string | null;
  input_chars: number | null; output_chars: number | null; status: string; denied_reason: string | null; duration_ms: number | null; created_at: string;
  /** Who decided the call when it waited for a person; null when nobody was asked (absent from an audit plugin older than it). */
  approval?: TraceApproval | null;
}

/** The query the audit plugin's service answers (`sessionTrace`); the kernel's `AuditLog` does not declare it yet. */
export interface AuditTraceSource {
  sessionTrace(sessionId: string, query?: { runs?: number }): Promise<{
    runs: string[]; llmCalls: LlmCallRecord[]; toolInvocations: ToolInvocationRecord[]; moreRuns: boolean;
  }>;
}

/** The audit service as a trace source; ORYX_E_WEB_NO_AUDIT when there is none, or it cannot answer. */
export function traceSource(kernel: PluginContext): AuditTraceSource {
  const audit = kernel.hasService('audit') ? kernel.service('audit') as AuditLog & Partial<AuditTraceSource> : undefined;
  if (typeof audit?.sessionTrace !== 'function') {
    throw webError('ORYX_E_WEB_NO_AUDIT', 'No audit trail that can be read is enabled, so there is no run timeline to show');
  }
  return audit as AuditTraceSource;
}

const num = (v: number | null | undefined): number => (typeof v === 'number' && Number.isFinite(v) ? v : Number(v ?? 0) || 0);
const opt = <T>(v: T | null | undefined): T | undefined => (v === null ? undefined : v);

/**
 * Shapes audit rows into runs. Rows are written when a call ends, so a call's start is its
 * `created_at` less its duration; entries are sorted by start and placed by their offset from
 * the run's first start.
 *
 * @example
 * const trace = shapeTrace(session, await traceSource(kernel).sessionTrace(session.id));
 */
export function shapeTrace(
  session: { id: string; agent: string },
  rows: Awaited<ReturnType<AuditTraceSource['sessionTrace']>>,
): SessionTrace {
  const byRun = new Map<string, { agent?: string; entries: (LlmEntry | ToolEntry)[] }>(rows.runs.map((id) => [id, { entries: [] }]));
  const place = (runId: string | null, entry: LlmEntry | ToolEntry, agent?: string | null) => {
    const run = runId === null ? undefined : byRun.get(runId);
    if (!run) return;
    run.agent ??= opt(agent);
    run.entries.push(entry);
  };
  const startOf = (end: string, ms: number) => new Date(Date.parse(end) - ms).toISOString();
  for (const r of rows.llmCalls) {
    const durationMs = num(r.latency_ms);
    place(r.run_id, {
      kind: 'llm', startedAt: startOf(r.created_at, durationMs), offsetMs: 0, durationMs, iteration: num(r.iteration), attempt: num(r.attempt) || 1,
      provider: opt(r.provider), model: opt(r.model), inputTokens: opt(r.input_tokens), outputTokens: opt(r.output_tokens),
      ...(typeof r.cache_read_tokens === 'number' ? { cacheReadTokens: r.cache_read_tokens } : {}),
      finishReason: opt(r.finish_reason), status: r.status === 'error' ? 'error' : 'ok', errorCode: opt(r.error_code), error: opt(r.error),
      retried: num(r.retried) === 1,
    }, r.agent);
  }
  for (const r of rows.toolInvocations) {
    const durationMs = num(r.duration_ms);
    place(r.run_id, {
      kind: 'tool', startedAt: startOf(r.created_at, durationMs), offsetMs: 0, durationMs, iteration: num(r.iteration),
      toolCallId: opt(r.tool_call_id), tool: r.tool, source: opt(r.source),
      status: r.status === 'denied' ? 'denied' : r.status === 'error' ? 'error' : 'ok',
      deniedReason: opt(r.denied_reason), inputChars: opt(r.input_chars), outputChars: opt(r.output_chars),
      approval: r.approval ? { decision: r.approval.decision, by: r.approval.by, ...(r.approval.reason ? { reason: r.approval.reason } : {}) } : null,
    });
  }
  const runs: TraceRun[] = [];
  for (const [runId, { agent, entries }] of byRun) {
    if (entries.length === 0) continue;
    entries.sort((a, b) => Date.parse(a.startedAt) - Date.parse(b.startedAt) || a.iteration - b.iteration);
    const start = Math.min(...entries.map((e) => Date.parse(e.startedAt)));
    const end = Math.max(...entries.map((e) => Date.parse(e.startedAt) + e.durationMs));
    for (const e of entries) e.offsetMs = Date.parse(e.startedAt) - start;
    runs.push({
      runId, ...(agent ? { agent } : {}), startedAt: new Date(start).toISOString(), endedAt: new Date(end).toISOString(),
      durationMs: end - start, totals: totalsOf(entries), entries,
    });
  }
  return { sessionId: session.id, agent: session.agent, runs, totals: totalsOf(runs.flatMap((r) => r.entries)), moreRuns: rows.moreRuns };
}

function totalsOf(entries: (LlmEntry | ToolEntry)[]): TraceTotals {
  const t: TraceTotals = { llmCalls: 0, llmErrors: 0, retries: 0, inputTokens: 0, outputTokens: 0, llmMs: 0, toolCalls: 0, toolErrors: 0, denied: 0, toolMs: 0 };
  for (const e of entries) {
    if (e.kind === 'llm') {
      t.llmCalls++;
      if (e.status === 'error') t.llmErrors++;
      if (e.retried) t.retries++;
      t.inputTokens += e.inputTokens ?? 0;
      t.outputTokens += e.outputTokens ?? 0;
      if (e.cacheReadTokens !== undefined) t.cacheReadTokens = (t.cacheReadTokens ?? 0) + e.cacheReadTokens;
      t.llmMs += e.durationMs;
    } else {
      t.toolCalls++;
      if (e.status === 'error') t.toolErrors++;
      if (e.status === 'denied') t.denied++;
      t.toolMs += e.durationMs;
    }
  }
  return t;
}
