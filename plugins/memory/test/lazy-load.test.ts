// Read commands must not compile the memory plugin's working code: `oryx agents` and `oryx
// tools` load its entry (the factory, the tools' schemas, the `memory` service's stand-in) but
// not the store, the parser or the prompt section, which load on first use. The CLI runs from
// the build (dist), as users run it.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { traceProject, tracedOryx, type LoadedFile } from '../../../test/fixtures/trace-oryx.ts';
import { recallMemoryTool, saveMemoryTool, type MemoryToolStore, type RunMemoryOf } from '../src/tools.ts';

/** `oryx …` in the project: its output and the memory plugin's files it loaded. */
function oryx(dir: string, args: string[]) {
  const r = tracedOryx(dir, args, 'plugins/memory/dist');
  assert.is(r.status, 0, r.stderr);
  return r;
}

// Code of the store (parser), the prompt section and the checkpoints: none of it belongs to a read command.
const WORK = ['function parseMemory(', 'function memoryPrompt(', 'function checkpointItems('];
const working = (files: LoadedFile[]) => files.filter((f) => WORK.some((w) => f.text.includes(w))).map((f) => f.url);

test('oryx agents and oryx tools load the memory plugin\'s entry but not its store or prompt code; a run loads them', async () => {
  const dir = await traceProject('memory-lazy-', `import { defineConfig } from '@oryxos/kernel';
import { allowAll, scripted } from '@oryxos/kernel/testing';
import memory from '@oryxos/plugin-memory';
export default defineConfig({ plugins: [allowAll(), scripted([{ text: 'noted' }]), memory()] });
`, { assistant: { tools: ['save_memory', 'recall_memory'] } });
  try {

    const agents = oryx(dir, ['agents']);
    assert.match(agents.stdout, /^assistant\s/m);
    assert.ok(agents.files.some((f) => f.url.endsWith('/plugins/memory/dist/index.js')), 'the plugin\'s entry is loaded');
    assert.equal(working(agents.files), []);

    // The tools are listed as the plugin defines them (names, descriptions, schemas), with the default Core cap.
    const tools = oryx(dir, ['tools', '--json']);
    const listed = (JSON.parse(tools.stdout) as { items: { name: string; description: string; inputSchema: unknown }[] }).items
      .filter((t) => t.name.endsWith('_memory')).map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));
    const store = { coreMaxChars: 2000 } as MemoryToolStore;
    const memoryOf: RunMemoryOf = () => { throw new Error('not called'); };
    assert.equal(listed, [saveMemoryTool(store, memoryOf), recallMemoryTool(store, memoryOf)]
      .map(({ name, description, inputSchema }) => ({ name, description, inputSchema })));
    assert.equal(working(tools.files), []);

    // The same trace sees that code once a run needs it: the check above can fail.
    const run = oryx(dir, ['run', 'remember', 'this']);
    assert.match(run.stdout, /noted/);
    assert.equal(working(run.files).length > 0, true, 'a run loads the memory plugin\'s working code');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
