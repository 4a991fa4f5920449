import type { CallStart, RunRecordStore } from '@oryxos/contracts';
import type { Database } from '@oryxos/contracts';
import type { PluginContext } from '@oryxos/kernel';

const INSERT = `INSERT INTO tool_invocations (session_id, run_id, agent, iteration, tool_call_id, tool, source, input, input_chars,
  output, output_chars, status, denied_reason, retryable, duration_ms, created_at) VALUES (?, ?, ?, NULL, ?, ?, NULL, NULL, NULL, ?, ?, 'interrupted', NULL, 0, NULL, ?)`;

const OUTPUT = 'The process ended after this call started and before its result was stored: it may have run. (Recorded at the next start.)';

/**
 * Gives every tool call that was marked started and never got its result (its process died
 * between the two) its `tool_invocations` row, status `interrupted`, once: a call that already
 * has a row (written at an earlier start, or by `afterTool` before the crash) gets no second one.
 * The marks come from the session store (`startedWithoutResult()`, every session's but those of
 * runs still going on); the agent from the run's record. Returns how many rows it wrote.
 *
 * @example
 * const n = await recordInterrupted(db, sessions, runRecords); // at init, after a crash
 */
export async function recordInterrupted(
  db: Pick<Database, 'query' | 'execute'>,
  sessions: { startedWithoutResult?(sessionId?: string): Promise<CallStart[]> },
  runs?: Pick<RunRecordStore, 'get'>,
): Promise<number> {
  if (!sessions.startedWithoutResult) return 0;
  let written = 0;
  for (const mark of await sessions.startedWithoutResult()) {
    const [seen] = await db.query('SELECT 1 AS x FROM tool_invocations WHERE session_id = ? AND tool_call_id = ? AND run_id = ? LIMIT 1',
      [mark.sessionId, mark.toolCallId, mark.runId]);
    if (seen) continue;
    const agent = (await runs?.get(mark.runId).catch(() => undefined))?.agent ?? null;
    await db.execute(INSERT, [mark.sessionId, mark.runId, agent, mark.toolCallId, mark.tool, OUTPUT, OUTPUT.length, new Date().toISOString()]);
    written++;
  }
  return written;
}

