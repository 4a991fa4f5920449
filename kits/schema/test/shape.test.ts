// Shapes on their own (the kernel's tests cover them through validateOptions and AGENT.md).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { issueText, shape as s } from '@oryxos/schema-kit';

const args = s.object({ path: s.string({ min: 1 }), depth: s.integer({ min: 1, max: 10 }).optional() });

test('the first problem names its path, what was wrong and what was given; a fitting value has none', () => {
  assert.is(s.check(args, { path: 'a', depth: 3 }), undefined);
  assert.is(issueText(s.check(args, { path: 'a', depth: 11 })!), 'depth must be at most 10 (was 11)');
  assert.is(issueText(s.check(args, { depth: 1 })!), 'path must be a string (was missing)');
  const unknown = s.check(args, { path: 'a', dpeth: 2 })!;
  assert.equal([unknown.path, unknown.problem, unknown.known], [['dpeth'], 'must be removed', ['path', 'depth']]);
});

test('an array with a minimum length says how many it has, and its schema says minItems', () => {
  const one = s.array(s.string(), { min: 1 });
  assert.is(s.check(one, ['a']), undefined);
  assert.is(issueText(s.check(s.object({ messages: one }), { messages: [] })!), 'messages must be non-empty (was an empty array)');
  assert.is(issueText(s.check(s.array(s.integer(), { min: 2 }), [1])!), 'must have at least 2 items (was 1)');
  assert.is(issueText(s.check(one, ['a', 3])!), '1 must be a string (was a number)');
  assert.equal(one.json(), { type: 'array', items: { type: 'string' }, minItems: 1 });
  assert.equal(s.array(s.string()).json(), { type: 'array', items: { type: 'string' } });
});

test('json() gives the JSON Schema of what the shape accepts', () => {
  assert.equal(args.json(), {
    type: 'object', properties: { path: { type: 'string', minLength: 1 }, depth: { type: 'integer', minimum: 1, maximum: 10 } },
    required: ['path'], additionalProperties: false,
  });
});

test.run();
