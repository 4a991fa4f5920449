import type { SandboxEvent } from './sandbox.ts';

/** An `llm_calls` row, as stored. */
export interface LlmCallRow {
  id: number; session_id: string | null; run_id: string | null; agent: string | null; iteration: number | null; attempt: number;
  provider: string | null; model: string | null; input_tokens: number | null; output_tokens: number | null;
  /** Input tokens the provider served from its prompt cache; null when it reported none. */
  cache_read_tokens: number | null;
  /** Input tokens written to the provider's prompt cache; null when it reported none. */
  cache_write_tokens: number | null;
  latency_ms: number | null;
  finish_reason: string | null; status: 'ok' | 'error'; error_code: string | null; error: string | null; retried: number | null; created_at: string;
  /** The prompt report, compact JSON; null for rows written before it was kept. */
  prompt_report: string | null;
}

/** A `tool_invocations` row, as stored. */
export interface ToolInvocationRow {
  id: number; session_id: string | null; run_id: string | null; agent: string | null; iteration: number | null; tool_call_id: string | null;
  tool: string; source: string | null; input: string | null; input_chars: number | null; output: string | null; output_chars: number | null;
  /** `interrupted`: the call had started when its process died, and its result was never stored. */
  status: 'ok' | 'error' | 'denied' | 'interrupted'; denied_reason: string | null; retryable: number; duration_ms: number | null; created_at: string;
}

/** How a person decided a tool call that waited for them. */
export interface ToolCallApproval {
  decision: 'approved' | 'denied';
  /** Who decided: `cli` (the terminal's prompt), a web token's identity, `timeout`, `new-message`. */
  by: string;
  /** The reason given with the decision, when there was one. */
  reason?: string;
}

/** A `tool_invocations` row of a trace, with how a person decided the call (null: nobody was asked). */
export type TracedToolInvocation = ToolInvocationRow & { approval: ToolCallApproval | null };

/** The audit rows of a session's last runs, oldest first. */
export interface SessionTraceRows {
  /** Run ids, oldest first. */
  runs: string[];
  llmCalls: LlmCallRow[];
  toolInvocations: TracedToolInvocation[];
  /** Older runs exist that were left out (raise `runs`). */
  moreRuns: boolean;
}

/**
 * The audit service (the audit plugin): decisions that are not tool calls land here too, and
 * readers (the web console's timeline) read a session's trail through it.
 *
 * @example
 * const { llmCalls } = await kernel.service('audit').sessionTrace(sessionId, { runs: 5 });
 */
export interface AuditLog {
  sandboxEvent(event: SandboxEvent): Promise<void>;
  sessionTrace(sessionId: string, query?: { runs?: number }): Promise<SessionTraceRows>;
}
