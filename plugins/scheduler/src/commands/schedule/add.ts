import { Args, Flags } from '@oclif/core';
import { OryxCommand } from '@oryxos/command-kit';
import { schedulerOf, shortTime } from '../../cli.ts';
import type { TaskInfo } from '../../rows.ts';

export default class ScheduleAdd extends OryxCommand {
  static override summary = 'Add a task: an agent run on a cron expression, an interval or a date.';
  static override description = 'Everything is checked now, never at fire time: the schedule, the agent, the notify channel, '
    + 'an --at that has passed and a name in use are refused with their own error code. The task is stored in the database; '
    + 'a running `oryx schedule start` or `oryx web` picks it up within refreshMs.';
  static override examples = [
    '<%= config.bin %> schedule add morning-brief --agent assistant --message "Summarise yesterday." --cron "0 8 * * 1-5" --timezone Europe/Berlin',
    '<%= config.bin %> schedule add inbox --agent assistant --message "Check the inbox." --every 15m --notify ops',
    '<%= config.bin %> schedule add once --agent assistant --message "Send the report." --at 2026-12-01T09:00:00+01:00',
  ];
  static override enableJsonFlag = true;
  static override args = { name: Args.string({ description: 'Task name: letters, digits, ".", "_" or "-".', required: true }) };
  static override flags = {
    agent: Flags.string({ char: 'a', summary: 'The agent that runs.', required: true }),
    message: Flags.string({ char: 'm', summary: 'What the agent is asked at every run.', required: true }),
    cron: Flags.string({ summary: 'Cron expression: 5 fields, or 6 with seconds first.', exclusive: ['every', 'at'] }),
    every: Flags.string({ summary: 'Interval: ms or a duration (30s, 5m, 1h30m, 1d); slots fall on multiples of it since 1970-01-01T00:00Z.', exclusive: ['cron', 'at'] }),
    at: Flags.string({ summary: 'One date, ISO 8601 with a time zone (2026-12-01T09:00:00+01:00).', exclusive: ['cron', 'every'] }),
    timezone: Flags.string({ summary: 'IANA time zone of --cron (default UTC).' }),
    session: Flags.string({ summary: 'new: a new session per run; task: one session continues across runs.', options: ['new', 'task'], default: 'new' }),
    notify: Flags.string({ summary: 'Notify channel that receives each result.' }),
    timeout: Flags.integer({ summary: 'Milliseconds a run may take before it is aborted (recorded timeout).', min: 1000 }),
    overlap: Flags.string({ summary: 'A slot that comes while the previous run still goes: skip it, or queue it.', options: ['skip', 'queue'], default: 'skip' }),
    'catch-up': Flags.string({ summary: 'Slots missed while no scheduler ran: run the latest, none, or all.', options: ['latest', 'none', 'all'], default: 'latest' }),
    disabled: Flags.boolean({ summary: 'Store the task disabled (enable it with `oryx schedule enable`).', default: false }),
  };

  async run(): Promise<TaskInfo> {
    const { args, flags } = await this.parse(ScheduleAdd);
    const { kernel } = await this.boot();
    const task = await schedulerOf(kernel).add({
      name: args.name, agent: flags.agent, message: flags.message, cron: flags.cron, every: flags.every, at: flags.at, timezone: flags.timezone,
      session: flags.session, notify: flags.notify, timeoutMs: flags.timeout, overlap: flags.overlap, catchUp: flags['catch-up'], enabled: !flags.disabled,
    });
    if (!this.jsonEnabled()) this.log(`Added task ${task.name}: ${task.schedule}, agent ${task.agent}${task.next ? `, next at ${shortTime(task.next)} UTC` : ''}.`);
    return task;
  }
}
