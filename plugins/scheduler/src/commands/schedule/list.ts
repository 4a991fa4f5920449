import { OryxCommand, table, listJson, type ListJson } from '@oryxos/command-kit';
import { schedulerOf, shortTime } from '../../cli.ts';
import type { TaskInfo } from '../../rows.ts';

export default class ScheduleList extends OryxCommand {
  static override readOnly = true;
  static override summary = 'List scheduled tasks: schedule, agent, next slot, last result.';
  static override examples = ['<%= config.bin %> schedule list', '<%= config.bin %> schedule list --json'];
  static override enableJsonFlag = true;

  async run(): Promise<ListJson<TaskInfo>> {
    const { kernel } = await this.boot();
    const tasks = await schedulerOf(kernel).list();
    if (!this.jsonEnabled()) {
      if (tasks.length === 0) this.log('No scheduled tasks. Add one with `oryx schedule add NAME --agent A --message M --every 1h`, or in scheduler({ tasks }).');
      else {
        this.log(table(tasks.map((t) => ({
          name: t.name, schedule: t.schedule, agent: t.agent, enabled: t.enabled ? 'yes' : 'no', next: shortTime(t.next) || '-',
          last: t.last ? `${t.last.status} ${shortTime(t.last.slot)}` : '-', notify: t.notify ?? '', from: t.source,
        }))));
      }
    }
    return listJson(tasks);
  }
}
