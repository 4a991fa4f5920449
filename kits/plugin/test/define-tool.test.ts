import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type } from 'arktype';
import { isOryxError } from '@oryxos/kernel';
import { scripted, testKernel, toolsPlugin } from '@oryxos/kernel/testing';
import { defineTool, stringRecord } from '../src/index.ts';

const greet = defineTool({
  name: 'greet', description: 'Greets someone',
  args: type({ name: 'string > 0', 'headers?': stringRecord, '+': 'reject' }),
  describe: { name: 'Who to greet' },
  async execute({ name }) { return `hello ${name}`; },
});

test('one arktype type gives the JSON Schema the model sees and the check of the arguments', () => {
  assert.is(greet.source, 'plugin');
  assert.equal(greet.inputSchema, {
    type: 'object', additionalProperties: false, required: ['name'],
    properties: { name: { type: 'string', minLength: 1, description: 'Who to greet' }, headers: { type: 'object', additionalProperties: { type: 'string' } } },
  });
  assert.is(greet.validate!({ name: 'Ada' }), undefined);
  assert.match(greet.validate!({ name: '' })!, 'name must be non-empty');
  assert.match(greet.validate!({ name: 'Ada', extra: 1 })!, 'extra must be removed');
  assert.match(greet.validate!({ name: 'Ada', headers: ['x'] })!, 'an object of names to strings');
  assert.is(defineTool({ name: 'b', description: 'b', source: 'builtin', args: type({}), describe: {}, async execute() { return ''; } }).source, 'builtin');
});

test('a describe key that names no argument, or a predicate JSON Schema cannot carry, is ORYX_E_PLUGIN_INVALID naming the tool', () => {
  for (const make of [
    () => defineTool({ name: 'typo', description: 'd', args: type({ name: 'string' }), describe: { nmae: 'x' } as never, async execute() { return ''; } }),
    () => defineTool({ name: 'odd', description: 'd', args: type({ n: type('number').narrow((n) => n % 2 === 1) }), describe: {}, async execute() { return ''; } }),
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
