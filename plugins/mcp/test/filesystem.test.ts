// @modelcontextprotocol/server-filesystem over stdio, driven by a scripted model through the kernel.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Plugin, ToolResult } from '@oryxos/kernel';
import { scripted, type TestKernel } from '@oryxos/kernel/testing';
import { FILESYSTEM, NODE, mcpKernel } from './helpers.ts';

let t: TestKernel | undefined;
let dir = '';
test.before.each(async () => {
  dir = realpathSync(await mkdtemp(path.join(tmpdir(), 'oryx-mcp-fs-')));
  await writeFile(path.join(dir, 'notes.txt'), 'first line\nsecond line\n');
});
test.after.each(async () => {
  await t?.close();
  t = undefined;
  await rm(dir, { recursive: true, force: true });
});

/** Records what afterTool sees, as the audit plugin would. */
function observer(seen: { name: string; source?: string; status: string; result: ToolResult }[]): Plugin {
  return {
    name: 'observer', version: '1.0.0', kernel: '^1',
    setup(k) {
      k.hooks.afterTool.tapPromise(async (result, info) => {
        seen.push({ name: info.call.name, source: info.tool?.source, status: info.status, result });
        return result;
      });
    },
  };
}

test('a scripted model reads a file through filesystem__read_text_file; afterTool sees source mcp', async () => {
  const file = path.join(dir, 'notes.txt');
  const llm = scripted([
    { toolCalls: [{ id: 'r1', name: 'filesystem__read_text_file', args: { path: file } }] },
    (req) => ({ text: `file says: ${req.messages.at(-1)!.content}` }),
  ]);
  const seen: Parameters<typeof observer>[0] = [];
  t = await mcpKernel({ servers: { filesystem: { command: NODE, args: [FILESYSTEM, dir] } } }, {
    plugins: [llm, observer(seen)],
    agents: { assistant: { tools: ['filesystem__read_text_file', 'filesystem__list_directory'] } },
  });
  const run = await t.service.process({ agent: 'assistant', message: 'read notes' });
  assert.is(run.answer, 'file says: first line\nsecond line\n');
  assert.equal(llm.requests[0]!.tools.map((x) => x.name).sort(), ['filesystem__list_directory', 'filesystem__read_text_file']);
  assert.equal(seen.map((s) => [s.name, s.source, s.status]), [['filesystem__read_text_file', 'mcp', 'ok']]);
});

test('an MCP isError result reaches the model as an error tool message', async () => {
  const llm = scripted([
    { toolCalls: [{ id: 'r1', name: 'filesystem__read_text_file', args: { path: '/etc/hostname' } }] },
    { text: 'could not read it' },
  ]);
  const seen: Parameters<typeof observer>[0] = [];
  t = await mcpKernel({ servers: { filesystem: { command: NODE, args: [FILESYSTEM, dir] } } }, {
    plugins: [llm, observer(seen)], agents: { assistant: { tools: ['filesystem__*'] } },
  });
  const run = await t.service.process({ agent: 'assistant', message: 'read outside' });
  assert.is(run.answer, 'could not read it');
  const message = llm.requests[1]!.messages.at(-1)!;
  assert.is(message.role, 'tool');
  assert.is((message as { isError?: boolean }).isError, true);
  assert.match(message.content, /Access denied - path outside allowed directories/);
  assert.is(seen[0]!.status, 'error');
  assert.is(seen[0]!.result.retryable, undefined);
});

test('the server\'s tools: allow-list limits what is offered and what can be called', async () => {
  t = await mcpKernel({ servers: { filesystem: { command: NODE, args: [FILESYSTEM, dir], tools: ['read_text_file', 'list_*'] } } });
  const mcp = t.kernel.service('mcp');
  const names = (await mcp.tools('filesystem')).map((x) => x.name).sort();
  assert.equal(names, ['list_allowed_directories', 'list_directory', 'list_directory_with_sizes', 'read_text_file']);
  const listing = await mcp.call('filesystem', 'list_directory', { path: dir });
  assert.match(listing.content, /\[FILE\] notes\.txt/);
  const refused = await mcp.call('filesystem', 'write_file', { path: path.join(dir, 'x.txt'), content: 'x' }).catch((e) => e);
  assert.is(refused.code, 'ORYX_E_MCP_TOOL_UNKNOWN');
  assert.match(refused.hint, /read_text_file/);
});

test.run();
