import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isOryxError } from '@oryxos/provider-spec';
import { shape as s } from '@oryxos/schema-kit';
import { scripted, testKernel, toolsPlugin } from '@oryxos/kernel/testing';
import { defineTool, stringRecord } from '../src/index.ts';

const greet = defineTool({
  name: 'greet', description: 'Greets someone',
  args: s.object({ name: s.string({ min: 1 }), headers: stringRecord.optional() }),
  describe: { name: 'Who to greet' },
  async execute({ name }) { return `hello ${name}`; },
});

test('one shape gives the JSON Schema the model sees and the check of the arguments', () => {
  assert.is(greet.source, 'plugin');
  assert.equal(greet.inputSchema, {
    type: 'object', additionalProperties: false, required: ['name'],
    properties: { name: { type: 'string', minLength: 1, description: 'Who to greet' }, headers: { type: 'object', additionalProperties: { type: 'string' } } },
  });
  assert.is(greet.validate!({ name: 'Ada' }), undefined);
  assert.match(greet.validate!({ name: '' })!, 'name must be non-empty');
  assert.match(greet.validate!({ name: 'Ada', extra: 1 })!, 'extra must be removed');
  assert.match(greet.validate!({ name: 'Ada', headers: ['x'] })!, 'headers must be an object (was an array)');
  assert.match(greet.validate!({ name: 'Ada', headers: { a: 1 } })!, 'headers.a must be a string (was a number)');
  assert.is(defineTool({ name: 'b', description: 'b', source: 'builtin', args: s.object({}), describe: {}, async execute() { return ''; } }).source, 'builtin');
});

test('idempotent and parallel: false reach the kernel tool; a tool is neither unless it says so', () => {
  assert.is(greet.idempotent, undefined);
  assert.is(greet.parallel, undefined);
  const read = defineTool({ name: 'peek', description: 'Reads', idempotent: true, parallel: false, args: s.object({}), describe: {}, async execute() { return ''; } });
  assert.is(read.idempotent, true);
  assert.is(read.parallel, false);
});

test('a describe key that names no argument, or arguments that are not a shape (another library\'s schema), are ORYX_E_PLUGIN_INVALID naming the tool', () => {
  // What a zod or arktype schema looks like to defineTool: a function or object that is no shape.
  const foreign = Object.assign((v: unknown) => v, { toJsonSchema: () => ({ type: 'object' }) });
  for (const make of [
    () => defineTool({ name: 'typo', description: 'd', args: s.object({ name: s.string() }), describe: { nmae: 'x' } as never, async execute() { return ''; } }),
    () => defineTool({ name: 'odd', description: 'd', args: foreign as never, describe: {}, async execute() { return ''; } }),
  ]) {
    try { make(); assert.unreachable(); } catch (e) {
      assert.ok(isOryxError(e) && e.code === 'ORYX_E_PLUGIN_INVALID', String(e));
      assert.match((e as Error).message, /tool (typo|odd)/);
    }
  }
});

test('a defined tool runs in the loop; bad arguments go back to the model as an error result', async () => {
  const llm = scripted([{ toolCalls: [{ name: 'greet', args: { name: '' } }] }, { toolCalls: [{ name: 'greet', args: { name: 'Ada' } }] }, { text: 'done' }]);
  const t = await testKernel({ plugins: [llm, toolsPlugin(greet)] });
  try {
    await t.service.process({ agent: 'assistant', message: 'go' });
    const results = llm.requests.slice(1).map((r) => r.messages.at(-1)!.content);
    assert.match(results[0]!, 'Invalid arguments for greet: name must be non-empty');
    assert.is(results[1], 'hello Ada');
  } finally { await t.close(); }
});

test.run();
