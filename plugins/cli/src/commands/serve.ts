import { Flags } from '@oclif/core';
import type { Logger } from '@oryxos/kernel';
import { OryxError } from '@oryxos/provider-spec';
import { OryxCommand } from '@oryxos/command-kit';
import { ERROR_CODES } from '../errors.ts';

export default class Serve extends OryxCommand {
  static override serving = true;
  static override summary = 'Start every enabled door but the REST server (channels, the scheduler) and serve until SIGINT or SIGTERM.';
  static override description = 'The host of the doors plugins register: an email inbox, a Telegram bot, the scheduler. Each starts once the kernel '
    + 'has started; `oryx web` starts them too, beside the REST server, which this command never starts. On SIGINT or SIGTERM each door stops '
    + 'taking new work, lets its runs finish for the grace period, aborts the rest (their sessions keep every committed message), then the '
    + 'kernel and the database close and it exits 0. Any number of these may share one database.';
  static override examples = ['<%= config.bin %> serve', '<%= config.bin %> serve --door email', '<%= config.bin %> serve --grace 60000'];
  static override flags = {
    door: Flags.string({ summary: 'Start only this door (repeat for several); default every enabled one but web.', multiple: true }),
    grace: Flags.integer({ summary: 'Milliseconds runs going on may take to finish on shutdown (default: each door\'s own).', min: 0 }),
    verbose: Flags.boolean({ char: 'v', summary: 'Also print debug lines.', default: false }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Serve);
    const logger: Logger = {
      debug: (m) => { if (flags.verbose) this.log(m); },
      info: (m) => this.log(m),
      warn: (m) => this.logToStderr(`warning: ${m}`),
    };
    const { kernel } = await this.boot({ logger });
    // The REST server is `oryx web`'s; a terminal door (`cli`) only exists under `oryx run` and `oryx chat`.
    const served = kernel.doors.map((d) => d.name).filter((name) => name !== 'web' && name !== 'cli');
    const wanted = flags.door ?? served;
    const unknown = wanted.filter((name) => !served.includes(name));
    if (unknown.length || !wanted.length) {
      throw new OryxError('ORYX_E_SERVE_NO_DOORS', unknown.length
        ? `No enabled door is named ${unknown.map((n) => `"${n}"`).join(', ')} (enabled: ${served.join(', ') || 'none'})`
        : 'No door to serve: no enabled plugin registers one (the web plugin\'s REST server is served by `oryx web`)', { hint: ERROR_CODES.ORYX_E_SERVE_NO_DOORS });
    }
    // Signals are caught before starting, so one that arrives during startup still shuts down cleanly.
    const stop = new Promise<string>((resolve) => {
      process.once('SIGINT', () => resolve('SIGINT'));
      process.once('SIGTERM', () => resolve('SIGTERM'));
    });
    await kernel.startDoors(wanted);
    this.log(`oryx serve: doors started: ${wanted.join(', ')}`);
    const signal = await stop;
    this.log(`${signal}: stopping the doors`);
    const reports = Object.values(await kernel.stopDoors(flags.grace !== undefined ? { graceMs: flags.grace } : {}));
    this.log(`stopped: ${reports.reduce((n, r) => n + r.finished, 0)} run(s) finished, ${reports.reduce((n, r) => n + r.aborted, 0)} aborted`);
    // The kernel (and with it the database) is closed by OryxCommand.finally.
  }
}
