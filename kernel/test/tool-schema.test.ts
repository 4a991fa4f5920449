import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compileToolSchema, MAX_SCHEMA_CHARS } from '@oryxos/schema-kit';
import { isOryxError, type ToolMessage } from '@oryxos/provider-spec';
import type { Plugin, Tool } from '@oryxos/kernel';
import { scripted, testKernel } from '@oryxos/kernel/testing';

const plugin = (...list: Tool[]): Plugin => ({ name: 'third-party', version: '1.0.0', kernel: '^1', setup(k) { list.forEach((t) => k.registerTool(t)); } });
const tool = (name: string, inputSchema: Record<string, unknown>): Tool => ({ name, description: name, source: 'plugin', inputSchema, async execute(args) { return `ran ${JSON.stringify(args)}`; } });

async function rejection(p: Promise<unknown>): Promise<any> {
  try { await p; } catch (error) { return error; }
  throw new Error('expected a rejection');
}

test('a catastrophic pattern is checked in linear time: a long non-matching argument gets an answer', async () => {
  const { check } = await compileToolSchema({ type: 'object', properties: { text: { type: 'string', pattern: '^(a+)+$' } } }, 'tool "redos"');
  // With a backtracking engine this takes longer than the age of the universe.
  assert.is(check({ text: `${'a'.repeat(50_000)}!` }), 'text: must match pattern "^(a+)+$"');
  assert.is(check({ text: 'a'.repeat(50_000) }), undefined);
});

test('keywords the old checker ignored are enforced: format, $ref, patternProperties, 2020-12 $defs', async () => {
  const { check } = await compileToolSchema({
    type: 'object',
    definitions: { day: { type: 'string', format: 'date' } },
    properties: { when: { $ref: '#/definitions/day' }, mail: { type: 'string', format: 'email' } },
    patternProperties: { '^x-': { type: 'number' } },
  }, 'tool "t"');
  assert.is(check({ when: '2025-02-30' }), 'when: must match format "date"');
  assert.is(check({ mail: 'nobody' }), 'mail: must match format "email"');
  assert.is(check({ 'x-n': 'one' }), 'x-n: must be number (got string)');
  assert.is(check({ when: '2025-02-28', mail: 'a@b.example', 'x-n': 1 }), undefined);
  const modern = await compileToolSchema({
    $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object',
    $defs: { n: { type: 'integer' } }, properties: { list: { type: 'array', prefixItems: [{ $ref: '#/$defs/n' }] } },
  }, 'tool "m"');
  assert.is(modern.check({ list: ['x'] }), 'list[0]: must be integer (got string)');
});

test('each schema object is compiled once', async () => {
  const schema = { type: 'object', properties: { a: { type: 'string' } } };
  assert.is(await compileToolSchema(schema, 'a'), await compileToolSchema(schema, 'a'));
});

test('invalid schemas are ORYX_E_TOOL_SCHEMA naming the tool, never a throw at call time', async () => {
  for (const [schema, why] of [
    [{ type: 'object', required: 5 }, 'required must be array'],
    [{ type: 'object', allOf: 1 }, 'allOf must be array'],
    [{ type: 'string', pattern: '(' }, 'Invalid regular expression'],
    [{ properties: { a: { $ref: '#/nope' } } }, "can't resolve reference"],
    [{ type: 'object', description: 'x'.repeat(MAX_SCHEMA_CHARS) }, `more than the ${MAX_SCHEMA_CHARS}`],
  ] as const) {
    const e = await rejection(compileToolSchema(schema as Record<string, unknown>, 'tool "bad" of MCP server "evil"'));
    assert.ok(isOryxError(e), String(e));
    assert.is(e.code, 'ORYX_E_TOOL_SCHEMA');
    assert.match(e.message, 'tool "bad" of MCP server "evil" has an invalid input schema');
    assert.match(e.message, why);
  }
});

test('a pattern RE2 cannot run (lookahead) is reported and left unchecked, not run by a backtracking engine', async () => {
  const { check, unchecked } = await compileToolSchema({ type: 'object', properties: { p: { type: 'string', pattern: '^(?=.*\\d)(a|a)*$' } } }, 'tool "l"');
  assert.equal(unchecked, ['^(?=.*\\d)(a|a)*$']);
  assert.is(check({ p: `${'a'.repeat(40)}!` }), undefined);
});

test('a registered tool with an invalid schema stops the kernel at start, naming tool and plugin', async () => {
  const e = await rejection(testKernel({ plugins: [scripted([]), plugin(tool('broken', { type: 'object', required: 5 }))] }));
  assert.is(e.code, 'ORYX_E_TOOL_SCHEMA');
  assert.match(e.message, 'tool "broken" (plugin third-party)');
});

test('arguments of a plain-schema tool are checked with Ajv; the model is told which field is wrong', async () => {
  const t = tool('when', { type: 'object', properties: { day: { type: 'string', format: 'date' } }, required: ['day'], additionalProperties: false });
  const llm = scripted([{ toolCalls: [{ name: 'when', args: { day: 'soon' } }] }, { toolCalls: [{ name: 'when', args: { day: '2025-01-01' } }] }, { text: 'done' }]);
  const k = await testKernel({ plugins: [llm, plugin(t)], agents: { assistant: { tools: ['when'] } } });
  await k.service.process({ agent: 'assistant', message: 'go' });
  await k.close();
  const results = llm.requests.slice(1).map((r) => (r.messages.at(-1) as ToolMessage).content);
  assert.equal(results, ['Invalid arguments for when: day: must match format "date". Fix them and call again.', 'ran {"day":"2025-01-01"}']);
});

test.run();
