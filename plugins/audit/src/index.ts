/**
 * @oryxos/plugin-audit: every model call and tool call written to `llm_calls` and
 * `tool_invocations` (failures, retries and denials too), and sandbox denials and confined
 * connections to `sandbox_events`, secrets redacted first.
 *
 * @example
 * import sqlite from '@oryxos/plugin-sqlite';
 * import audit from '@oryxos/plugin-audit';
 * export default defineConfig({ plugins: [sqlite(), audit()] });
 */
export { default, default as audit } from './plugin.ts';
export { ERROR_CODES, type AuditErrorCode } from './errors.ts';
export { resolveOptions, type AuditOptions } from './options.ts';
export { createRedactor, secretName, REDACTED, type Redactor, type RedactOption } from './redact.ts';
export { AuditRecorder, compactPromptReport } from './recorder.ts';
export { MIGRATIONS, OWNER } from './migrations.ts';
export { listLlmCalls, getLlmCall, promptReportOf, type PromptReportRow, listToolInvocations, approvalsOf, approvalKey, type ToolCallApproval, listSandboxEvents, summarize, type AuditFilter, type LlmCallRow, type ToolInvocationRow, type SandboxEventRow, type SessionSummary } from './queries.ts';
export { sessionTrace, type SessionTraceRows, type TracedToolInvocation } from './session-trace.ts';
