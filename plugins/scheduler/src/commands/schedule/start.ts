import { Flags } from '@oclif/core';
import type { Logger } from '@oryxos/kernel';
import { OryxCommand } from '@oryxos/command-kit';
import { schedulerOf } from '../../cli.ts';

export default class ScheduleStart extends OryxCommand {
  static override summary = 'Run the scheduler in the foreground until SIGINT or SIGTERM.';
  static override description = 'Stores the config\'s tasks, records the slots missed while no scheduler ran (catchUp), then fires every '
    + 'enabled task at its slots. Any number of these (and of `oryx web`) may share one database: each slot runs once. '
    + 'On SIGINT or SIGTERM it stops firing, lets running runs finish for the grace period, aborts the rest (recorded timeout) and exits 0.';
  static override examples = ['<%= config.bin %> schedule start', '<%= config.bin %> schedule start --grace 60000'];
  static override flags = {
    grace: Flags.integer({ summary: 'Milliseconds running runs may take to finish on shutdown (default: graceMs of scheduler(), 30000).', min: 0 }),
    verbose: Flags.boolean({ char: 'v', summary: 'Also print debug lines (every tick, every slot another process took).', default: false }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ScheduleStart);
    const logger: Logger = {
      debug: (m) => { if (flags.verbose) this.log(m); },
      info: (m) => this.log(m),
      warn: (m) => this.logToStderr(`warning: ${m}`),
    };
    const { kernel } = await this.boot({ logger });
    const scheduler = schedulerOf(kernel);
    // Signals are caught before starting, so one that arrives during startup still shuts down cleanly.
    const stop = new Promise<string>((resolve) => {
      process.once('SIGINT', () => resolve('SIGINT'));
      process.once('SIGTERM', () => resolve('SIGTERM'));
    });
    await kernel.startDoors(['scheduler']);
    const tasks = await scheduler.list();
    const enabled = tasks.filter((t) => t.enabled);
    this.log(`oryx scheduler started: ${enabled.length} enabled task(s)${enabled.length ? `: ${enabled.map((t) => `${t.name} (${t.schedule})`).join(', ')}` : ''}`);
    const signal = await stop;
    this.log(`${signal}: stopping the scheduler (${scheduler.inFlight} run(s) going on)`);
    const report = (await kernel.stopDoors({ ...(flags.grace !== undefined ? { graceMs: flags.grace } : {}) })).scheduler ?? { finished: 0, aborted: 0 };
    this.log(`stopped: ${report.finished} run(s) finished, ${report.aborted} aborted`);
  }
}
