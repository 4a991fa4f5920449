/** This package's error codes with how to fix each; the README lists the same. */
export const ERROR_CODES = {
  ORYX_E_INIT_EXISTS: 'Pass --force to replace them (your edits in those files will be lost).',
  ORYX_E_CLI_AMBIGUOUS_ID: 'Several sessions start with that prefix: give more characters of the id (the error lists them).',
  ORYX_E_CLI_UNKNOWN_COMMAND: 'Run the command the message suggests, or `oryx help` for the list of commands.',
} as const;
