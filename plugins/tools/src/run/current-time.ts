import type { ToolResult } from '@oryxos/kernel';
import type { CurrentTimeArgs } from '../tools/current-time.ts';
import { failure } from './results.ts';

/** Runs `current_time` (defined in tools/current-time.ts). */
export async function currentTime(a: CurrentTimeArgs): Promise<ToolResult | string> {
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
}
