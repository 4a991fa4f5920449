import { OryxError } from '@oryxos/provider-spec';

/**
 * Every error code this package raises or logs, with how to fix it. `test/error-codes.test.ts`
 * checks this table against README.md so the two never drift.
 *
 * @example
 * console.log(ERROR_CODES.ORYX_E_AUDIT_SCHEMA);
 */
export const ERROR_CODES = {
  ORYX_E_AUDIT_OPTIONS: 'Fix the audit() option the message names in oryx.config.ts.',
  ORYX_E_AUDIT_SCHEMA: 'The database service did not create the audit tables (its migrate() did nothing): use sqlite() or another database plugin that runs migrations.',
  ORYX_E_AUDIT_NOT_FOUND: 'No model call with that id: list them with `oryx audit llm` (the id is the first column).',
  ORYX_E_AUDIT_WRITE: 'Logged as a warning, never thrown: an audit row could not be written (disk full, database locked); the run went on. Fix the database.',
} as const;

export type AuditErrorCode = keyof typeof ERROR_CODES;

export function auditError(code: AuditErrorCode, message: string, options: { hint?: string; cause?: unknown; data?: Record<string, unknown> } = {}): OryxError {
  return new OryxError(code, message, { ...options, hint: options.hint ?? ERROR_CODES[code] });
}
