/** This package's error codes with how to fix each; the README lists the same. */
export const ERROR_CODES = {
  ORYX_E_CONFIG_NOT_FOUND: 'Run `oryx init`, or pass --config with the path of an oryx.config.ts.',
  ORYX_E_CONFIG_LOAD: 'The config file threw while loading: fix the syntax or import it names.',
  ORYX_E_CONFIG_UNSAFE: 'The config file is owned by another user or sits in a folder everyone can write to: move it into your project, fix its owner or mode, and name it with --config.',
  ORYX_E_CLI_USAGE: 'Check the command usage with --help.',
  ORYX_E_CLI_FAILED: 'An unexpected error in a command; report it with the command you ran.',
  ORYX_E_PLUGINS_NOT_A_PLUGIN: 'Install an OryxOS plugin (package.json with an "oryx" block) or an oclif plugin (an "oclif" block); `oryx plugins new NAME` writes one.',
  ORYX_E_PLUGINS_PACKAGE: 'Fix the plugin package.json field the message names (its "oryx" or "oclif" block), build the plugin, then install it again.',
  ORYX_E_PLUGINS_NEW_EXISTS: 'Pick another name or folder (--dir), or remove the folder: nothing in it was changed.',
  ORYX_E_PLUGINS_NEW_NAME: 'Use lowercase letters, digits and dashes, starting with a letter: oryx plugins new word-count.',
  ORYX_E_INIT_EXISTS: 'Pass --force to replace them (your edits in those files will be lost).',
  ORYX_E_CLI_AMBIGUOUS_ID: 'Several sessions start with that prefix: give more characters of the id (the error lists them).',
  ORYX_E_SERVE_NO_DOORS: 'Enable a plugin that adds a door (a channel such as @oryxos/channel-email or @oryxos/channel-telegram, or the scheduler) in oryx.config.ts, or name one `oryx serve --door` lists as enabled; the REST server is `oryx web`.',
  ORYX_E_CLI_UNKNOWN_COMMAND: 'Run the command the message suggests, or `oryx help` for the list of commands.',
} as const;
