// With the real sqlite and audit plugins: MCP calls land in tool_invocations with source mcp.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import audit from '@oryxos/plugin-audit';
import sqlite from '@oryxos/plugin-sqlite';
import { allowAll, scripted, testKernel } from '@oryxos/kernel/testing';
import mcp from '../src/index.ts';
import { fixture } from './helpers.ts';

test('every MCP call of a run, failures too, is audited with source mcp', async () => {
  const llm = scripted([
    { toolCalls: [{ id: 'c1', name: 'fx__echo', args: { text: 'audited' } }, { id: 'c2', name: 'fx__fail' }] },
    { text: 'done' },
  ]);
  const t = await testKernel({ plugins: [allowAll(), sqlite(), audit(), mcp({ servers: { fx: fixture() } }), llm] });
  try {
    const run = await t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(run.answer, 'done');
    const rows = await t.kernel.service('database').query<{ tool: string; source: string; status: string; output: string }>(
      'SELECT tool, source, status, output FROM tool_invocations ORDER BY tool_call_id');
    assert.equal(rows, [
      { tool: 'fx__echo', source: 'mcp', status: 'ok', output: 'echo: audited' },
      { tool: 'fx__fail', source: 'mcp', status: 'error', output: 'fixture: this tool always fails' },
    ]);
  } finally {
    await t.close();
  }
});

test.run();
