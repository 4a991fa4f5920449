import { isOryxError } from '@oryxos/provider-spec';
import type { ToolResult } from '@oryxos/kernel';

/** An error result the model sees and can act on. */
export function failure(content: string, retryable = false): ToolResult {
  return { content, isError: true, retryable };
}

/** True for the sandbox's denial, which must reach the kernel unchanged (it records the reason). */
export function isSandboxDenial(error: unknown): boolean {
  return isOryxError(error) && error.code === 'ORYX_E_SANDBOX_DENIED';
}
