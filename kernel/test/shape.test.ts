import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isOryxError, type OryxError } from '@oryxos/provider-spec';
import { issueText, shape as s, validateOptions } from '@oryxos/schema-kit';

const options = s.object({
  url: s.string({ min: 1 }).optional(),
  name: s.string({ pattern: /^[a-z]+$/ }).optional(),
  mode: s.literal('fast', 'slow').optional(),
  retries: s.integer({ min: 0, max: 10 }).optional(),
  timeoutMs: s.integer({ above: 0 }).optional(),
  ratio: s.number({ min: 0.5 }).optional(),
  eager: s.boolean().optional(),
  hosts: s.array(s.string({ min: 1 })).optional(),
  headers: s.record(s.string()).optional(),
  cors: s.union(s.boolean(), s.string({ min: 1 })).optional(),
  limits: s.object({ maxChars: s.integer({ min: 1 }) }).optional(),
  hook: s.custom('a function', (v) => typeof v === 'function').optional(),
});
const spec = { plugin: 'demo', code: 'ORYX_E_DEMO_OPTIONS', example: 'demo({ url: "x" })' };

function thrown(value: unknown): OryxError {
  try { validateOptions(options, value, spec); } catch (error) {
    assert.ok(isOryxError(error), String(error));
    assert.is(error.code, spec.code);
    return error;
  }
  throw new Error(`accepted ${JSON.stringify(value)}`);
}

test('a valid value comes back as it was; undefined entries and no options count as not set', () => {
  const value = { url: 'x', mode: 'slow', retries: 0, timeoutMs: 1, ratio: 0.5, eager: false, hosts: ['a'], headers: { a: 'b' }, cors: true, limits: { maxChars: 1 }, hook: () => {} };
  assert.equal(validateOptions(options, value, spec), value);
  assert.equal(validateOptions(options, { url: undefined }, spec), {});
  assert.equal(validateOptions(options, undefined, spec), {});
});

test('each problem names the field, what was wrong and what was given', () => {
  const cases: [unknown, string, string][] = [
    [{ url: '' }, 'url', 'must be non-empty'],
    [{ url: 3 }, 'url', 'must be a string (was a number)'],
    [{ name: 'A1' }, 'name', 'must be matched by ^[a-z]+$ (was "A1")'],
    [{ mode: 'medium' }, 'mode', 'must be "fast" or "slow" (was "medium")'],
    [{ retries: -1 }, 'retries', 'must be non-negative (was -1)'],
    [{ retries: 11 }, 'retries', 'must be at most 10 (was 11)'],
    [{ retries: 1.5 }, 'retries', 'must be an integer (was 1.5)'],
    [{ timeoutMs: 0 }, 'timeoutMs', 'must be positive (was 0)'],
    [{ ratio: 0.25 }, 'ratio', 'must be at least 0.5 (was 0.25)'],
    [{ eager: 'yes' }, 'eager', 'must be boolean (was "yes")'],
    [{ hosts: 'a' }, 'hosts', 'must be an array (was a string)'],
    [{ hosts: ['a', ''] }, 'hosts.1', 'must be non-empty'],
    [{ headers: ['a'] }, 'headers', 'must be an object (was an array)'],
    [{ headers: { a: 1 } }, 'headers.a', 'must be a string (was a number)'],
    [{ cors: '' }, 'cors', 'must be non-empty'],
    [{ cors: 1 }, 'cors', 'must be boolean or a non-empty string (was 1)'],
    [{ limits: {} }, 'limits.maxChars', 'must be a number (was missing)'],
    [{ hook: 'x' }, 'hook', 'must be a function (was "x")'],
  ];
  for (const [value, field, problem] of cases) {
    const e = thrown(value);
    assert.is(e.message, `demo(): option ${field} ${problem}`, JSON.stringify(value));
    assert.equal(e.data, { field });
    assert.is(e.hint, `Fix ${field} in demo({...}) in oryx.config.ts; see the option table in the @oryxos/plugin-demo README.`);
  }
});

test('an unknown key is to be removed, with the closest known key and the known ones at its level', () => {
  assert.match(thrown({ ulr: 'x' }).message, /^demo\(\): option ulr must be removed \(did you mean "url"\?\) \(known options: cors, eager, headers, hook, hosts, limits, /);
  assert.is(thrown({ limits: { maxChar: 1 } }).message, 'demo(): option limits.maxChar must be removed (did you mean "maxChars"?) (known keys of limits: maxChars)');
  assert.is(thrown({ limits: { zzzzzz: 1, maxChars: 1 } }).message, 'demo(): option limits.zzzzzz must be removed (known keys of limits: maxChars)');
  const ignoring = s.object({ a: s.string() }, { unknownKeys: 'ignore' });
  assert.is(s.check(ignoring, { a: 'x', b: 1 }), undefined);
});

test('a whole value that is not an object is "(options)", and the hint shows an example call', () => {
  for (const value of ['file:x', 42, ['a']]) {
    const e = thrown(value);
    assert.match(e.message, /^demo\(\): options must be an object \(was /);
    assert.is(e.hint, 'Call demo() with an options object, e.g. demo({ url: "x" }).');
  }
});

test('refine adds a check after the base shape; issueText is the field and the problem', () => {
  const port = s.integer().refine((n) => n % 2 === 0, 'an even number');
  assert.equal(s.check(s.object({ port }), { port: 3 }), { path: ['port'], problem: 'must be an even number (was 3)' });
  assert.is(issueText(s.check(s.object({ port }), { port: 'x' })!), 'port must be a number (was a string)');
  assert.is(issueText(s.check(port, 1.5)!), 'must be an integer (was 1.5)');
});

test('the JSON Schema of a shape: what a tool tells the model, descriptions included', () => {
  const args = s.object({
    path: s.string({ min: 1 }).describe('Where'),
    depth: s.integer({ min: 1, max: 10 }).optional(),
    mode: s.literal('a', 'b').optional(),
    tags: s.array(s.string()).optional(),
    headers: s.record(s.string()).optional(),
    either: s.union(s.string(), s.literal(null)).optional(),
    above: s.number({ above: 0 }).optional(),
  });
  assert.equal(args.json(), {
    type: 'object',
    properties: {
      path: { type: 'string', minLength: 1, description: 'Where' },
      depth: { type: 'integer', minimum: 1, maximum: 10 },
      mode: { enum: ['a', 'b'] },
      tags: { type: 'array', items: { type: 'string' } },
      headers: { type: 'object', additionalProperties: { type: 'string' } },
      either: { anyOf: [{ type: 'string' }, { const: null }] },
      above: { type: 'number', exclusiveMinimum: 0 },
    },
    required: ['path'],
    additionalProperties: false,
  });
});

test.run();
