/**
 * @oryxos/plugin-audit/trail: the code behind the audit trail, for programs and plugins that
 * write or read it themselves: the recorder, the redactor, the queries. The package's main
 * entry holds the plugin (and loads these on first use).
 *
 * @example
 * import { listToolInvocations, approvalsOf, approvalKey } from '@oryxos/plugin-audit/trail';
 * const rows = await listToolInvocations(kernel.service('database'), { status: 'denied' });
 * const approvals = await approvalsOf(kernel.service('database'), rows);
 * approvals.get(approvalKey(rows[0]!));
 */
export { createRedactor, secretName, REDACTED, type Redactor, type RedactOption } from './redact.ts';
export { AuditRecorder, compactPromptReport, type RecorderOptions } from './recorder.ts';
export {
  listLlmCalls, getLlmCall, promptReportOf, type PromptReportRow, listToolInvocations, approvalsOf, approvalKey, type ToolCallApproval,
  listSandboxEvents, summarize, type AuditFilter, type LlmCallRow, type ToolInvocationRow, type SandboxEventRow, type SessionSummary,
} from './queries.ts';
export { sessionTrace, type SessionTraceRows, type TracedToolInvocation } from './session-trace.ts';
