// A read command in a project that declares no MCP server loads the plugin's entry but not
// the code that connects servers; with servers declared, it loads that code (not the SDK)
// and `oryx tools` reports them without starting any. Real `oryx` processes on the built
// packages, every resolved module URL traced (test/fixtures/trace-imports.mjs).
import { existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { oryxTrace, traceProject } from '../../../test/fixtures/trace-oryx.ts';

const root = path.resolve(import.meta.dirname, '../../..');
const entry = /plugins\/mcp\/dist\/index\.js$/;
const connections = /plugins\/mcp\/dist\/chunks\/server-[^/]+\.js$|plugins\/mcp\/src\//;
const sdk = /node_modules\/@modelcontextprotocol\//;

/** Runs `oryx ...args` in a project with the mcp plugin and this servers file; returns its output and the modules it loaded. */
async function oryx(serversFile: string, args: string[]) {
  const dir = await traceProject('mcp-lazy-', `import { defineConfig } from '@oryxos/kernel';
import { allowAll, scripted } from '@oryxos/kernel/testing';
import mcp from '@oryxos/plugin-mcp';
export default defineConfig({ plugins: [allowAll(), scripted([{ text: 'hi' }]), mcp()] });
`, { assistant: { tools: [] } }, { '.oryxos/mcp_servers.yaml': serversFile });
  try {
    return oryxTrace(dir, args);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('with no server declared, oryx agents and oryx tools load the mcp entry but no connection code', async () => {
  const chunks = path.join(root, 'plugins/mcp/dist/chunks');
  assert.ok(existsSync(chunks) && readdirSync(chunks).some((f) => /^server-[^.]+\.js$/.test(f)), 'the connection code is a chunk of its own');
  for (const args of [['agents'], ['tools', '--json']]) {
    const r = await oryx('servers: {}\n', args);
    assert.is(r.status, 0, r.stderr);
    assert.ok(r.loaded.some((u) => entry.test(u)), `${args[0]}: the mcp plugin itself was loaded`);
    assert.equal(r.loaded.filter((u) => connections.test(u) || sdk.test(u)), [], `${args[0]}: no connection code was loaded`);
    if (args[0] === 'tools') assert.equal(JSON.parse(r.stdout).sources, []);
  }
});

test('with servers declared, oryx tools loads the connection code to report them, and starts none', async () => {
  const r = await oryx('servers:\n  fx:\n    command: node\n    args: [server.mjs]\n  off:\n    url: http://127.0.0.1:9/mcp\n    enabled: false\n', ['tools', '--json']);
  assert.is(r.status, 0, r.stderr);
  const sources = JSON.parse(r.stdout).sources as { name: string; ok: boolean; tools: number; reason?: string }[];
  assert.equal(sources.map(({ name, ok, tools, reason }) => ({ name, ok, tools, reason })), [
    { name: 'fx', ok: true, tools: 0, reason: undefined },
    { name: 'off', ok: false, tools: 0, reason: 'disabled (enabled: false)' },
  ]);
  assert.is(r.loaded.filter((u) => connections.test(u)).length, 1, 'the connection code was loaded');
  assert.equal(r.loaded.filter((u) => sdk.test(u)), [], 'no server was started (the SDK loads at the first start)');
});

test.run();
