import { OryxError } from '@oryxos/provider-spec';

/**
 * Every error code this package raises, with how to fix it. `test/error-codes.test.ts`
 * checks this table against README.md so the two never drift.
 *
 * A tool that fails (file missing, non-zero exit, HTTP 500, timeout) does not raise: the
 * model gets an error tool result it can act on. Sandbox denials are the kernel's
 * ORYX_E_SANDBOX_DENIED.
 */
export const ERROR_CODES = {
  ORYX_E_TOOLS_OPTIONS: 'Fix the tools() option the message names in oryx.config.ts; see the option table in the @oryxos/plugin-tools README.',
} as const;

export type ToolsErrorCode = keyof typeof ERROR_CODES;

/** An OryxError with one of this package's codes; the hint defaults to the table's. */
export function toolsError(
  code: ToolsErrorCode, message: string, options: { hint?: string; cause?: unknown; data?: Record<string, unknown> } = {},
): OryxError {
  return new OryxError(code, message, { ...options, hint: options.hint ?? ERROR_CODES[code] });
}
