// A command that only lists tools loads the plugin's entry (names, descriptions, schemas) but
// not the code that runs them; the first call of a tool loads it. Real `oryx` processes on the
// built packages, every resolved module URL traced (test/fixtures/trace-imports.mjs).
import { existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { oryxTrace, traceProject } from '../../../test/fixtures/trace-oryx.ts';

const root = path.resolve(import.meta.dirname, '../../..');
const entry = /plugins\/tools\/dist\/index\.js$/;
const runtime = /plugins\/tools\/dist\/chunks\/runtime-[^/]+\.js$/;

/** Runs `oryx ...args` in a project with the tools plugin; returns its output and the modules it loaded. */
async function oryx(args: string[]) {
  const dir = await traceProject('tools-lazy-', `import { defineConfig } from '@oryxos/kernel';
import { allowAll, scripted } from '@oryxos/kernel/testing';
import tools from '@oryxos/plugin-tools';
export default defineConfig({
  plugins: [allowAll(), scripted([{ toolCalls: [{ name: 'current_time', args: { timezone: 'UTC' } }] }, (req) => ({ text: String(req.messages.at(-1)!.content) })]), tools()],
});
`, { assistant: { tools: ['current_time', 'read_file'] } });
  try {
    return oryxTrace(dir, args);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('oryx tools and oryx agents list the built-in tools without loading the code that runs them', async () => {
  const chunks = path.join(root, 'plugins/tools/dist/chunks');
  assert.ok(existsSync(chunks) && readdirSync(chunks).some((f) => /^runtime-[^.]+\.js$/.test(f)), 'the code that runs the tools is a chunk of its own');
  for (const args of [['tools', '--json'], ['agents']]) {
    const r = await oryx(args);
    assert.is(r.status, 0, r.stderr);
    assert.ok(r.loaded.some((u) => entry.test(u)), `${args[0]}: the tools plugin itself was loaded`);
    assert.equal(r.loaded.filter((u) => runtime.test(u) || /plugins\/tools\/src\//.test(u)), [], `${args[0]}: no tool code was loaded`);
    if (args[0] !== 'tools') continue;
    // What the model would be told is all there: names, descriptions and input schemas.
    const listed = JSON.parse(r.stdout) as { items: { name: string; description: string; inputSchema: { properties: Record<string, unknown> } }[] };
    assert.equal(listed.items.map((t) => t.name).sort(), ['current_time', 'edit_file', 'http_request', 'list_dir', 'read_file', 'shell', 'write_file']);
    const read = listed.items.find((t) => t.name === 'read_file')!;
    assert.match(read.description, /at most limit lines \(default 2000\)/);
    assert.equal(Object.keys(read.inputSchema.properties), ['path', 'offset', 'limit']);
  }
});

test('oryx run loads the tools\' code at the first call, and the call works', async () => {
  const r = await oryx(['run', 'what time is it?']);
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, /^utc: \d{4}-\d\d-\d\dT/m, 'the model got current_time\'s result');
  assert.is(r.loaded.filter((u) => runtime.test(u)).length, 1, 'the runtime chunk was loaded once');
});

test.run();
