import { OryxError } from '@oryxos/provider-spec';

/**
 * Every error code this package raises, with how to fix it. `test/error-codes.test.ts`
 * checks this table against README.md so the two never drift.
 *
 * A refused action is not an error of this package: it is a decision (`{allow: false,
 * reason}`) that the kernel turns into ORYX_E_SANDBOX_DENIED and an error tool result.
 */
export const ERROR_CODES = {
  ORYX_E_SANDBOX_OPTIONS: 'Fix the sandbox() option the message names in oryx.config.ts; see the option table in the @oryxos/plugin-sandbox README.',
  ORYX_E_SANDBOX_ROOT: 'A files root or deny entry could not be resolved (permission denied, symlink loop): fix the path or remove it from sandbox({ files }).',
} as const;

export type SandboxErrorCode = keyof typeof ERROR_CODES;

/** An OryxError with one of this package's codes; the hint defaults to the table's. */
export function sandboxError(
  code: SandboxErrorCode, message: string, options: { hint?: string; cause?: unknown; data?: Record<string, unknown> } = {},
): OryxError {
  return new OryxError(code, message, { ...options, hint: options.hint ?? ERROR_CODES[code] });
}
