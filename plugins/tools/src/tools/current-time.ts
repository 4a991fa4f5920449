import { shape as s } from '@oryxos/kernel';
import type { Tool } from '@oryxos/kernel';
import { builtinTool, failure } from '../builtin.ts';

/** `current_time {timezone?}`: the time now, in UTC and in a time zone. No sandbox action. */
export function currentTimeTool(): Tool {
  return builtinTool({
    name: 'current_time',
    description: 'The current date and time: ISO 8601 in UTC, and the local date, time, weekday and UTC offset in a time zone.',
    args: s.object({ timezone: s.string({ min: 1 }).optional() }),
    describe: { timezone: 'IANA time zone, e.g. Europe/Paris or America/New_York. Default: the zone of the machine running OryxOS.' },
    async execute(a) {
      const now = new Date();
      let format: Intl.DateTimeFormat;
      try {
        format = new Intl.DateTimeFormat('en-US', {
          timeZone: a.timezone, hourCycle: 'h23', weekday: 'long', year: 'numeric', month: '2-digit', day: '2-digit',
          hour: '2-digit', minute: '2-digit', second: '2-digit', timeZoneName: 'longOffset',
        });
      } catch {
        return failure(`current_time: unknown time zone ${JSON.stringify(a.timezone)}; use an IANA name such as Europe/Paris or UTC`);
      }
      const p = Object.fromEntries(format.formatToParts(now).map((x) => [x.type, x.value]));
      const offset = p.timeZoneName === 'GMT' ? '+00:00' : String(p.timeZoneName).replace('GMT', '');
      return [
        `utc: ${now.toISOString()}`,
        `local: ${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}${offset} (${p.weekday}, ${a.timezone ?? format.resolvedOptions().timeZone})`,
        `unix: ${Math.floor(now.getTime() / 1000)}`,
      ].join('\n');
    },
  });
}
