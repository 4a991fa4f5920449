/**
 * How a run ended: `final` (an answer without tool calls), `limit` (max_iterations), `budget`
 * (another limit of the run budget), `loop` (a stop rule saw it going round in circles),
 * `length` (the model's answer was cut at its token limit), `content_filter` (the server
 * withheld or refused the answer), `aborted` (the signal fired), `error`, or `suspended` (a
 * tool call waits for something outside the run — a person's approval — and
 * `runs.continue(runId)` goes on once it is there).
 */
export type StopReason = 'final' | 'limit' | 'budget' | 'loop' | 'length' | 'content_filter' | 'error' | 'aborted' | 'suspended';

/** A run's row: how it ended, or `running` while it runs, `crashed` when its process died before it ended. */
export type RunStatus = StopReason | 'running' | 'crashed';

/** A tool call a run stopped at, waiting for something outside it. */
export interface SuspendedCall {
  toolCallId: string;
  tool: string;
  /** Who suspended it (the plugin's name: `approvals`). */
  by: string;
  /** Why, in one line, for people. */
  reason: string;
  /** What that plugin keeps about it (`{ approvalId }`). */
  data?: Record<string, unknown>;
}

/** What continuing a suspended run needs, stored with its row. */
export interface RunContinuation {
  provider: string;
  model: string;
  user?: string;
  /** The door the run came from (`cli`, `web`, `telegram`), so the door is told when it needs a person again. */
  door?: string;
  suspended: SuspendedCall[];
  /** The run was one call a door made (no model): continuing it runs the call and ends. */
  direct?: boolean;
}

/** One run, as stored when it started and again when it ended. */
export interface RunRecord {
  runId: string;
  sessionId: string;
  agent: string;
  /** The run that started this one (a sub-agent's parent), when there is one. */
  parentRunId?: string;
  startedAt: string;
  /** Unset while it runs (or after it crashed). */
  finishedAt?: string;
  stopReason: RunStatus;
  /** Why it stopped short, in one line (limit, budget, loop, aborted, crashed). */
  notice?: string;
  iterations: number;
  toolCalls: number;
  inputTokens: number;
  outputTokens: number;
  /** Input tokens served from the provider's prompt cache, summed; unset when no call reported it. */
  cacheReadTokens?: number;
  /** Input tokens written to the prompt cache, summed; unset when no call reported it. */
  cacheWriteTokens?: number;
  /** The estimated cost in US dollars, when prices are configured for its model. */
  costUsd?: number;
  retries: number;
  durationMs: number;
  errorCode?: string;
  /** Set while it is suspended. */
  continuation?: RunContinuation;
}

/** What is known of a run when it starts. */
export type RunStart = Pick<RunRecord, 'runId' | 'sessionId' | 'agent' | 'parentRunId' | 'startedAt'>;

/**
 * The `runRecords` service (the session store plugins provide it): a row per run, written when
 * it starts and when it ends, so a run whose process died is still there (`crashed`).
 *
 * @example
 * const [last] = await kernel.service('runRecords').list({ sessionId, limit: 1 });
 */
export interface RunRecordStore {
  /** Newest first. */
  list(query?: { sessionId?: string; limit?: number }): Promise<RunRecord[]>;
  get(runId: string): Promise<RunRecord | undefined>;
  /** A run started: its row says `running` until {@link end}. */
  begin(start: RunStart): Promise<void>;
  /** A run ended (a suspended one keeps its continuation). */
  end(record: RunRecord): Promise<void>;
  /**
   * Marks `crashed` every row still `running` whose run can no longer be going on (its process
   * is gone, its session lease free), and returns them. Called at start.
   */
  recoverCrashed(): Promise<RunRecord[]>;
}
