import { existsSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Plugin, Tool } from '@oryxos/kernel';
import { scripted, testKernel } from '@oryxos/kernel/testing';
import sqlite from '../src/index.ts';
import { DRIVERS, tempDir } from './helpers.ts';

const echo: Tool = {
  name: 'echo', description: 'Echo text back', source: 'plugin',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  async execute(args) { return `echo: ${args.text}`; },
};
const tools: Plugin = { name: 'test-tools', version: '1.0.0', kernel: '^1', setup(k) { k.registerTool(echo); } };

for (const driver of DRIVERS) {
  test(`[${driver}] restart: a new kernel on the same file continues the session and the model sees the earlier history`, async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const first = scripted([{ toolCalls: [{ id: 'c1', name: 'echo', args: { text: 'ping' } }] }, { text: 'pinged' }]);
      const k1 = await testKernel({ plugins: [first, tools, sqlite({ driver })], dir });
      const r1 = await k1.service.process({ agent: 'assistant', message: 'please ping' });
      assert.is(r1.answer, 'pinged');
      await k1.close({ keep: true });
      assert.ok(existsSync(path.join(dir, '.oryxos', 'oryx.db')), 'the default url is file:.oryxos/oryx.db under the config root');

      const second = scripted([{ text: 'you asked me to ping' }]);
      const k2 = await testKernel({ plugins: [second, tools, sqlite({ driver })], dir });
      try {
        const r2 = await k2.service.process({ agent: 'assistant', session: r1.sessionId, message: 'what did I ask?' });
        assert.is(r2.sessionId, r1.sessionId);
        assert.equal(second.requests[0]!.messages.slice(1), [
          { role: 'user', content: 'please ping' },
          { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'echo', args: { text: 'ping' } }] },
          { role: 'tool', toolCallId: 'c1', name: 'echo', content: 'echo: ping' },
          { role: 'assistant', content: 'pinged' },
          { role: 'user', content: 'what did I ask?' },
        ]);
        const stored = await k2.kernel.service('sessions').messages(r1.sessionId);
        assert.is(stored.length, 6);
        assert.is(k2.kernel.serviceOwner('sessions'), 'sqlite');
      } finally {
        await k2.close({ keep: true });
      }
    } finally {
      await cleanup();
    }
  });
}

test('history window: only the last max_history_turns turns reach the model after a restart', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const agents = { assistant: { tools: [], settings: { max_history_turns: 2 } } };
    const llm = scripted([{ text: 'a1' }, { text: 'a2' }, { text: 'a3' }]);
    const k1 = await testKernel({ plugins: [llm, sqlite()], dir, agents });
    const { sessionId } = await k1.service.process({ agent: 'assistant', message: 'q1' });
    await k1.service.process({ agent: 'assistant', session: sessionId, message: 'q2' });
    await k1.service.process({ agent: 'assistant', session: sessionId, message: 'q3' });
    await k1.close({ keep: true });
    const llm2 = scripted([{ text: 'a4' }]);
    const k2 = await testKernel({ plugins: [llm2, sqlite()], dir, agents });
    try {
      await k2.service.process({ agent: 'assistant', session: sessionId, message: 'q4' });
      assert.equal(llm2.requests[0]!.messages.slice(1).map((m) => m.content), ['q3', 'a3', 'q4']);
    } finally {
      await k2.close({ keep: true });
    }
  } finally {
    await cleanup();
  }
});

test('a relative url resolves against the config root, and its folder is created', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const k = await testKernel({ plugins: [scripted([{ text: 'ok' }]), sqlite({ url: 'file:data/nested/x.db' })], dir });
    await k.close({ keep: true });
    assert.ok(existsSync(path.join(dir, 'data', 'nested', 'x.db')));
  } finally {
    await cleanup();
  }
});

test.run();
