// Which built-in tools run again after a crash: those that only read (read_file, list_dir,
// current_time) take no start mark, so a call of one cut off by a SIGKILL is run again or simply
// not run, never reported as "may have run"; those that write or run something (write_file,
// edit_file, shell here; http_request is not idempotent either, since it may POST) are marked
// before they start. Real kernel, sandbox and files; the mark is read from the session store
// while each call's result is on its way.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { STAGE, type Plugin } from '@oryxos/kernel';
import { scripted, testKernel } from '@oryxos/kernel/testing';
import sandbox from '@oryxos/plugin-sandbox';
import tools from '../src/index.ts';
import { tempDir } from './harness.ts';

test('read_file, list_dir and current_time take no start mark; write_file, edit_file and shell do', async () => {
  const { dir, cleanup } = await tempDir();
  await writeFile(path.join(dir, 'a.txt'), 'one\n');
  const marked: Record<string, boolean> = {};
  const statuses: Record<string, string> = {};
  const probe: Plugin = {
    name: 'probe', version: '1.0.0', kernel: '^1',
    setup(ctx) {
      ctx.hooks.afterTool.tapPromise({ stage: STAGE.OBSERVE }, async (result, info) => {
        const open = await ctx.service('sessions').startedWithoutResult(info.run.sessionId);
        marked[info.call.name] = open.some((m) => m.toolCallId === info.call.id);
        statuses[info.call.name] = info.status;
        return result;
      });
    },
  };
  const calls = [
    { name: 'read_file', args: { path: 'a.txt' } },
    { name: 'list_dir', args: { path: '.' } },
    { name: 'current_time', args: {} },
    { name: 'write_file', args: { path: 'b.txt', content: 'two\n' } },
    { name: 'edit_file', args: { path: 'a.txt', old: 'one', new: 'uno' } },
    { name: 'shell', args: { command: 'true', args: [] } },
  ];
  const llm = scripted([...calls.map((c, i) => ({ toolCalls: [{ id: `c${i}`, ...c }] })), { text: 'done' }]);
  const t = await testKernel({
    dir,
    plugins: [llm, sandbox({ files: { read: ['.'], write: ['.'] }, exec: { allow: ['true'] } }), tools(), probe],
    agents: { assistant: { tools: calls.map((c) => c.name) } },
  });
  try {
    const r = await t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(r.answer, 'done');
    assert.equal(statuses, Object.fromEntries(calls.map((c) => [c.name, 'ok'])), 'every call ran');
    assert.equal(marked, { read_file: false, list_dir: false, current_time: false, write_file: true, edit_file: true, shell: true });
  } finally {
    await t.close();
    await cleanup();
  }
});

test.run();
