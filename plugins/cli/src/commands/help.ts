import { Args, Command, Flags, loadHelpClass } from '@oclif/core';

/**
 * `oryx help [COMMAND]`: oclif's help for the CLI or one command, the output `--help` prints.
 * It was the command of `@oclif/plugin-help`, which imports `@oclif/core` by its package name
 * and so loaded a second copy of oclif, file by file (`oryx help agents`: 348 against 237 ms of
 * CPU, bench/README.md); as a command of this package it uses the one-file copy every OryxOS
 * command shares. Same arguments, flags and words as that command.
 */
export default class Help extends Command {
  static override description = 'Display help for <%= config.bin %>.';
  static override args = { command: Args.string({ description: 'Command to show help for.', required: false }) };
  static override flags = { 'nested-commands': Flags.boolean({ char: 'n', description: 'Include all nested commands in the output.' }) };
  static override strict = false;

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(Help);
    const HelpClass = await loadHelpClass(this.config);
    await new HelpClass(this.config, { all: flags['nested-commands'] }).showHelp(argv as string[]);
  }
}
