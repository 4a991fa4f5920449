/**
 * Every error code this package throws, with how to fix it. The README lists the same
 * codes; a test keeps the two in step.
 */
export const ERROR_CODES = {
  ORYX_E_REPLAY_OPTIONS: 'Fix the option the message names in replay({...}) in oryx.config.ts.',
  ORYX_E_REPLAY_TARGET_MISSING: 'Record mode wraps another provider: enable it in oryx.config.ts and name it in target.',
  ORYX_E_REPLAY_CASSETTE_NOT_FOUND: 'Record the cassette first (mode: \'record\'), or fix the cassette name or path.',
  ORYX_E_REPLAY_CASSETTE_INVALID: 'Fix the cassette line the message names; the README shows the format.',
  ORYX_E_REPLAY_CASSETTE_WRITE: 'The cassette could not be written: check the folder exists and is writable.',
  ORYX_E_REPLAY_DIVERGED: 'The conversation differs from the recording: re-record it (mode: \'record\') or edit the cassette line named.',
} as const;
