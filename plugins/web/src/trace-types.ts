// The run timeline's shapes (`GET /api/sessions/:id/trace`), shared by the server and the
// console's client code: no imports, types only.

/** One model call (one attempt) on the timeline. */
export interface LlmEntry {
  kind: 'llm'; startedAt: string; offsetMs: number; durationMs: number; iteration: number; attempt: number;
  provider?: string; model?: string; inputTokens?: number; outputTokens?: number;
  /** Input tokens the provider served from its prompt cache; absent when it reported none. */
  cacheReadTokens?: number; finishReason?: string;
  status: 'ok' | 'error'; errorCode?: string; error?: string; retried: boolean;
}

/** How a person decided a tool call that waited for approval: who (`cli`, a web token's identity, `timeout`, `new-message`), and why. */
export interface TraceApproval { decision: 'approved' | 'denied'; by: string; reason?: string }

/** One tool call on the timeline; `approval` is null when nobody was asked about it. */
export interface ToolEntry {
  kind: 'tool'; startedAt: string; offsetMs: number; durationMs: number; iteration: number; toolCallId?: string; tool: string;
  source?: string; status: 'ok' | 'error' | 'denied'; deniedReason?: string; inputChars?: number; outputChars?: number;
  approval: TraceApproval | null;
}

/** Sums over a run (or over every run shown). */
export interface TraceTotals {
  llmCalls: number; llmErrors: number; retries: number; inputTokens: number; outputTokens: number; llmMs: number;
  /** Input tokens served from the provider's prompt cache; absent when no call reported them. */
  cacheReadTokens?: number;
  toolCalls: number; toolErrors: number; denied: number; toolMs: number;
}

/** One run: its entries in start order, its span and totals. */
export interface TraceRun {
  runId: string; agent?: string; startedAt: string; endedAt: string; durationMs: number; totals: TraceTotals;
  entries: (LlmEntry | ToolEntry)[];
}

/** `GET /api/sessions/:id/trace`. */
export interface SessionTrace { sessionId: string; agent: string; runs: TraceRun[]; totals: TraceTotals; moreRuns: boolean }
