import { OryxError } from '@oryxos/provider-spec';

/**
 * Every error code this package raises, with how to fix it. `test/error-codes.test.ts`
 * checks this table against README.md so the two never drift.
 */
export const ERROR_CODES = {
  ORYX_E_APPROVALS_OPTIONS: 'Fix the approvals() option the message names in oryx.config.ts.',
  ORYX_E_APPROVAL_NOT_FOUND: 'No approval has that id: list them with `oryx approvals` (or GET /api/approvals) and pass one of those ids.',
  ORYX_E_APPROVAL_DECIDED: 'The approval was already decided (by the person or process the message names); its decision stands. List pending ones with `oryx approvals`.',
  ORYX_E_APPROVAL_EXPIRED: 'The approval expired before it was decided and its run went on with a denial; run the task again to get a new approval.',
  ORYX_E_APPROVAL_WAITING: 'The session waits for a decision on a tool call: `oryx approvals approve|deny ID` (or POST /api/approvals/:id), or set settings.pending_approval: deny in AGENT.md to deny it and go on.',
} as const;

export type ApprovalsErrorCode = keyof typeof ERROR_CODES;

/** An OryxError with one of this package's codes; the hint defaults to the table's. */
export function approvalsError(code: ApprovalsErrorCode, message: string, options: { hint?: string; cause?: unknown; data?: Record<string, unknown> } = {}): OryxError {
  return new OryxError(code, message, { ...options, hint: options.hint ?? ERROR_CODES[code] });
}
