// The JSON Schema the model sees and the validation the kernel runs come from one argument
// definition. These tests check that they agree on a spread of arguments, valid and not.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compileToolSchema } from '@oryxos/schema-kit';
import type { Tool } from '@oryxos/kernel';
import { scripted, testKernel } from '@oryxos/kernel/testing';
import tools, { TOOL_NAMES } from '../src/index.ts';

async function registered(options: Parameters<typeof tools>[0] = {}): Promise<Tool[]> {
  const t = await testKernel({ plugins: [scripted([]), tools(options)] });
  try {
    const agent = await t.kernel.agents.load('assistant');
    return await t.kernel.allTools(agent);
  } finally {
    await t.close();
  }
}

const samples: Record<string, unknown[]> = {
  read_file: [{ path: 'a' }, { path: 'a', offset: 0, limit: 5 }, { path: '' }, { path: 'a', offset: -1 }, { path: 'a', limit: 0 }, { path: 'a', offset: 1.5 }, { path: 3 }, {}, { path: 'a', extra: true }],
  write_file: [{ path: 'a', content: '' }, { path: 'a' }, { path: 'a', content: 5 }, { path: 'a', content: 'x', mode: 1 }],
  edit_file: [{ path: 'a', old: 'x', new: '' }, { path: 'a', old: '', new: 'y' }, { path: 'a', old: 'x' }, { path: 'a', old: 'x', new: 'y', all: true }],
  list_dir: [{ path: '.' }, { path: '.', depth: 10 }, { path: '.', depth: 11 }, { path: '.', depth: 0 }, { depth: 1 }],
  shell: [{ command: 'ls', args: [] }, { command: 'ls', args: ['-l'], cwd: 'x', timeoutMs: 1000 }, { command: 'ls' }, { command: 'ls', args: [1] },
    { command: '', args: [] }, { command: 'ls', args: [], timeoutMs: 0 }, { command: 'ls', args: [], timeoutMs: 10_000_000 }, { command: 'ls', args: 'ls -l' }],
  http_request: [{ url: 'http://x' }, { url: 'http://x', method: 'POST', headers: { a: 'b' }, body: 'b' }, { url: 'http://x', method: 'TRACE' },
    { url: 'http://x', headers: { a: 1 } }, { url: 'http://x', headers: ['a'] }, { url: '' }, { url: 'http://x', body: {} }],
  current_time: [{}, { timezone: 'UTC' }, { timezone: '' }, { timezone: 1 }, { tz: 'UTC' }],
};

test('every tool is registered as builtin with a description and a closed object schema', async () => {
  const list = await registered();
  assert.equal(list.map((t) => t.name).sort(), [...TOOL_NAMES].sort());
  for (const tool of list) {
    assert.is(tool.source, 'builtin');
    assert.is(tool.plugin, 'tools');
    assert.ok(tool.description.length > 20, tool.name);
    const schema = tool.inputSchema as Record<string, unknown>;
    assert.is(schema.type, 'object');
    assert.is(schema.additionalProperties, false, tool.name);
    assert.is(schema.$schema, undefined);
    for (const [key, prop] of Object.entries(schema.properties as Record<string, { description?: string }>)) {
      assert.ok(prop.description, `${tool.name}.${key} has no description`);
    }
  }
});

test('validate and the JSON Schema accept and reject the same arguments', async () => {
  for (const tool of await registered()) {
    const cases = samples[tool.name]!;
    const { check } = await compileToolSchema(tool.inputSchema, tool.name);
    assert.ok(cases.length >= 4, tool.name);
    let accepted = 0;
    for (const args of cases) {
      const fromType = tool.validate!(args as Record<string, unknown>);
      const fromSchema = check(args);
      assert.is(fromType === undefined, fromSchema === undefined, `${tool.name} ${JSON.stringify(args)}: validate says ${fromType}, schema says ${fromSchema}`);
      if (fromType === undefined) accepted++;
    }
    assert.ok(accepted > 0 && accepted < cases.length, `${tool.name}: the samples must include valid and invalid arguments`);
  }
});

test('option-dependent bounds reach both the schema and the validation', async () => {
  const shell = (await registered({ maxShellTimeoutMs: 5000 })).find((t) => t.name === 'shell')!;
  const prop = (shell.inputSchema.properties as Record<string, { maximum?: number }>).timeoutMs!;
  assert.is(prop.maximum, 5000);
  assert.match(shell.validate!({ command: 'ls', args: [], timeoutMs: 5001 })!, /timeoutMs must be at most 5000/);
  assert.is(shell.validate!({ command: 'ls', args: [], timeoutMs: 5000 }), undefined);
});

test.run();
