import { OryxError } from '@oryxos/provider-spec';
import type { RunResult } from '@oryxos/kernel';
import { webError } from './errors.ts';
import type { AbortCause } from './runner.ts';

/** The error a run cut short by the web channel answers with. */
export function abortedError(cause: AbortCause, timeoutMs: number): OryxError {
  if (cause === 'timeout') {
    return webError('ORYX_E_WEB_TIMEOUT', `The run took longer than ${timeoutMs} ms and was aborted; the session keeps every message committed before that`);
  }
  if (cause === 'deleted') {
    return webError('ORYX_E_WEB_SESSION_DELETED', 'The session was deleted while this run was going on, so the run was aborted');
  }
  if (cause === 'stopped') {
    return webError('ORYX_E_WEB_STOPPED', 'The run was stopped (POST /api/sessions/:id/stop); the session keeps every step committed before that');
  }
  if (cause === 'shutdown') return webError('ORYX_E_WEB_SHUTTING_DOWN', 'The server shut down before the run finished; the session keeps every message committed before that');
  return new OryxError('ORYX_E_RUN_ABORTED', 'The client went away, so the run was aborted', {
    hint: 'The session keeps every step committed before the abort.',
  });
}

/** A run that ended with stopReason `error`, as an OryxError. */
export function runError(result: RunResult): OryxError {
  const e = result.error ?? { code: 'ORYX_E_LLM_FAILED', message: 'The run failed' };
  return new OryxError(e.code, e.message, { hint: e.hint });
}
