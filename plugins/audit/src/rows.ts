// The small, synchronous helpers of the audit rows, apart from the queries (queries.ts) so that
// the plugin's entry can export them without loading the queries.
import type { LlmCallRow, ToolInvocationRow } from './queries.ts';

/** The stored prompt report: each section `[section, chars]`, every cut `[section, chars, reason]`, the estimated tokens. */
export interface PromptReportRow { in: [string, number][]; cut: [string, number, string][]; tokens: number }

/** The prompt report of a row, parsed; undefined when the row has none. */
export function promptReportOf(row: Pick<LlmCallRow, 'prompt_report'>): PromptReportRow | undefined {
  if (typeof row.prompt_report !== 'string') return undefined;
  try { return JSON.parse(row.prompt_report) as PromptReportRow; } catch { return undefined; }
}

/** The columns that name a tool call in both tables. */
export type CallRef = Pick<ToolInvocationRow, 'session_id' | 'run_id' | 'tool_call_id'>;

/** The key of a tool call (a `tool_invocations` row) in the map `approvalsOf` returns: its session, run and id. */
export function approvalKey(call: CallRef): string {
  return `${call.session_id ?? ''}\u0000${call.run_id ?? ''}\u0000${call.tool_call_id ?? ''}`;
}
