/**
 * @oryxos/plugin-audit: every model call and tool call written to `llm_calls` and
 * `tool_invocations` (failures, retries and denials too), and sandbox denials and confined
 * connections to `sandbox_events`, secrets redacted first.
 *
 * This entry holds the plugin: importing it to configure it compiles only the factory, its
 * options and the tables' migrations; the recorder loads with the first row. The queries, the
 * redactor and the row helpers are `@oryxos/plugin-audit/trail`'s.
 *
 * @example
 * import sqlite from '@oryxos/plugin-sqlite';
 * import audit from '@oryxos/plugin-audit';
 * export default defineConfig({ plugins: [sqlite(), audit()] });
 */
export { default, default as audit } from './plugin.ts';
export { ERROR_CODES, type AuditErrorCode } from './errors.ts';
export { resolveOptions, type AuditOptions } from './options.ts';
export { MIGRATIONS, OWNER, checkSchema, pruneOlderThan } from './migrations.ts';
export type { Redactor, RedactOption } from './redact.ts';
export type { AuditRecorder } from './recorder.ts';
export type { PromptReportRow, ToolCallApproval, AuditFilter, LlmCallRow, ToolInvocationRow, SandboxEventRow, SessionSummary } from './queries.ts';
export type { SessionTraceRows, TracedToolInvocation } from './session-trace.ts';
