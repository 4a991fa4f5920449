// A project folder for tests of the built CLI: a scripted model (answers name the process that
// ran them; ORYX_TEST_DELAY_MS makes each answer take that long), sqlite, the scheduler and
// notify, as oryx.config.ts. Build first (`npm test` does). The scheduler keeps its default
// leaseMs: a killed process on this host is seen by its pid, and a short lease would count a
// live run interrupted whenever a loaded machine stalls its process for a few seconds.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { tempProject, writeAgents } from '@oryxos/kernel/testing';

export async function cliProject(options: { tasks?: unknown[]; channels?: unknown[]; smtpAllow?: string[] } = {}): Promise<string> {
  const dir = await tempProject('scheduler-cli-');
  await writeAgents(path.join(dir, '.oryxos'), { assistant: { tools: [] }, reporter: { tools: [] } });
  await writeFile(path.join(dir, 'oryx.config.ts'), `import { defineConfig } from '@oryxos/kernel';
import { scripted } from '@oryxos/kernel/testing';
import sqlite from '@oryxos/plugin-sqlite';
import sandbox from '@oryxos/plugin-sandbox';
import scheduler from '@oryxos/plugin-scheduler';
import notify from '@oryxos/plugin-notify';

const delayMs = Number(process.env.ORYX_TEST_DELAY_MS ?? 0);
export default defineConfig({
  plugins: [
    scripted(Array.from({ length: 5000 }, (_, i) => () => ({ text: \`answer \${i + 1} from \${process.pid}\`, delayMs }))),
    sqlite(),
    sandbox({ smtp: { allow: ${JSON.stringify(options.smtpAllow ?? [])} } }),
    scheduler({ tasks: ${JSON.stringify(options.tasks ?? [])}, refreshMs: 500, graceMs: 5000 }),
    notify({ channels: ${JSON.stringify(options.channels ?? [])}, retry: { attempts: 2, baseDelayMs: 50 } }),
  ],
});
`);
  return dir;
}
