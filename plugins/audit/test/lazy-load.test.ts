// Read commands must not compile the audit plugin's recorder or queries: `oryx agents`, `oryx
// tools` and `oryx sessions` load its entry (the factory, its options, the tables' migrations,
// checked at init as before) but not the code that writes or reads rows, which loads with the
// first row. The CLI runs from the build (dist), as users run it.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { traceProject, tracedOryx, type LoadedFile } from '../../../test/fixtures/trace-oryx.ts';

function oryx(dir: string, args: string[]) {
  const r = tracedOryx(dir, args, 'plugins/audit/dist');
  assert.is(r.status, 0, r.stderr);
  return r;
}

const has = (files: LoadedFile[], text: string) => files.filter((f) => f.text.includes(text)).map((f) => f.url);
const RECORDER = 'INSERT INTO llm_calls';
const QUERIES = 'SELECT * FROM llm_calls';

test('read commands load the audit plugin\'s entry but not its recorder or queries; a run and `oryx audit llm` load them', async () => {
  const dir = await traceProject('audit-lazy-', `import { defineConfig } from '@oryxos/kernel';
import { allowAll, scripted } from '@oryxos/kernel/testing';
import sqlite from '@oryxos/plugin-sqlite';
import audit from '@oryxos/plugin-audit';
export default defineConfig({ plugins: [allowAll(), scripted([{ text: 'audited answer' }]), sqlite(), audit()] });
`, { assistant: {} });
  try {

    // A run first, so the read commands find a database with the audit tables (init checks them).
    const run = oryx(dir, ['run', 'hello']);
    assert.match(run.stdout, /audited answer/);
    assert.ok(has(run.files, RECORDER).length > 0, 'a run loads the recorder');

    for (const command of ['agents', 'tools', 'sessions']) {
      const read = oryx(dir, [command]);
      assert.ok(read.files.some((f) => f.url.endsWith('/plugins/audit/dist/index.js')), `${command}: the plugin's entry is loaded`);
      assert.equal(has(read.files, RECORDER), [], `${command}: no recorder`);
      assert.equal(has(read.files, QUERIES), [], `${command}: no queries`);
    }

    // The run's model call was recorded, and reading the trail loads the queries.
    const llm = oryx(dir, ['audit', 'llm', '--json']);
    const rows = (JSON.parse(llm.stdout) as { items: { status: string; agent: string }[] }).items;
    assert.equal(rows.map((r) => [r.agent, r.status]), [['assistant', 'ok']]);
    assert.ok(has(llm.files, QUERIES).length > 0, '`oryx audit llm` loads the queries');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
