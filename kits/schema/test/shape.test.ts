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

test('json() gives the JSON Schema of what the shape accepts', () => {
  assert.equal(args.json(), {
    type: 'object', properties: { path: { type: 'string', minLength: 1 }, depth: { type: 'integer', minimum: 1, maximum: 10 } },
    required: ['path'], additionalProperties: false,
  });
});

test.run();
