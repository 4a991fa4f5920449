/** This package's error codes with how to fix each; the README lists the same. */
export const ERROR_CODES = {
  ORYX_E_CONFIG_NOT_FOUND: 'Run `oryx init`, or pass --config with the path of an oryx.config.ts.',
  ORYX_E_CONFIG_LOAD: 'The config file threw while loading: fix the syntax or import it names.',
  ORYX_E_CONFIG_UNSAFE: 'The config file is owned by another user or sits in a folder everyone can write to: move it into your project, fix its owner or mode, and name it with --config.',
  ORYX_E_CLI_USAGE: 'Check the command usage with --help.',
  ORYX_E_CLI_FAILED: 'An unexpected error in a command; report it with the command you ran.',
  ORYX_E_INIT_EXISTS: 'Pass --force to replace them (your edits in those files will be lost).',
} as const;
