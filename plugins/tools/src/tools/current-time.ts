import { shape as s, type Infer } from '@oryxos/schema-kit';
import type { Tool } from '@oryxos/kernel';
import { builtinTool, later, type ToolEnv } from '../builtin.ts';

const args = s.object({ timezone: s.string({ min: 1 }).optional() });
export type CurrentTimeArgs = Infer<typeof args>;

/** `current_time {timezone?}`: the time now, in UTC and in a time zone. No sandbox action. */
export function currentTimeTool(env: ToolEnv): Tool {
  return builtinTool({
    name: 'current_time',
    idempotent: true, // it only reads the clock
    description: 'The current date and time: ISO 8601 in UTC, and the local date, time, weekday and UTC offset in a time zone.',
    args,
    describe: { timezone: 'IANA time zone, e.g. Europe/Paris or America/New_York. Default: the zone of the machine running OryxOS.' },
    execute: later((r) => r.currentTime, env),
  });
}
