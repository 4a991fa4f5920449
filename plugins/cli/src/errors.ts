/** This package's error codes with how to fix each; the README lists the same. */
export const ERROR_CODES = {
  ORYX_E_INIT_EXISTS: 'Pass --force to replace them (your edits in those files will be lost).',
} as const;
