import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isOryxError, type OryxError } from '@oryxos/provider-spec';
import { shape as s, validateOptions } from '../src/index.ts';

const shape = s.object({
  url: s.string({ min: 1 }).optional(),
  limits: s.object({ maxChars: s.integer({ min: 1 }).optional() }).optional(),
});
const spec = { plugin: 'demo', code: 'ORYX_E_DEMO_OPTIONS', example: 'demo({ url: "x" })' };

function thrown(options: unknown): OryxError {
  try { validateOptions(shape, options, spec); } catch (error) {
    assert.ok(isOryxError(error), String(error));
    assert.is(error.code, spec.code);
    return error;
  }
  throw new Error(`accepted ${JSON.stringify(options)}`);
}

test('returns the validated value; undefined entries and no options count as not set', () => {
  assert.equal(validateOptions(shape, { url: 'file:x', limits: { maxChars: 5 } }, spec), { url: 'file:x', limits: { maxChars: 5 } });
  assert.equal(validateOptions(shape, { url: undefined, limits: undefined }, spec), {});
  assert.equal(validateOptions(shape, undefined, spec), {});
  // only top-level entries are dropped: a nested undefined is still checked by the schema
  assert.is(thrown({ url: '' }).data?.field, 'url');
});

test('a nested field is named by its dotted path in the message, the hint and data.field', () => {
  const e = thrown({ limits: { maxChars: 0 } });
  assert.is(e.message, 'demo(): option limits.maxChars must be at least 1 (was 0)');
  assert.is(e.hint, 'Fix limits.maxChars in demo({...}) in oryx.config.ts; see the option table in the @oryxos/plugin-demo README.');
  assert.equal(e.data, { field: 'limits.maxChars' });
  assert.is(thrown({ limits: { other: 1 } }).message, 'demo(): option limits.other must be removed (known keys of limits: maxChars)');
  assert.is(thrown({ limits: { maxChar: 1 } }).message, 'demo(): option limits.maxChar must be removed (did you mean "maxChars"?) (known keys of limits: maxChars)');
});

test('a wrong whole value is "(options)" and the hint shows an example call', () => {
  for (const options of ['file:x', 42]) {
    const e = thrown(options);
    assert.match(e.message, /^demo\(\): options must be an object/);
    assert.is(e.hint, 'Call demo() with an options object, e.g. demo({ url: "x" }).');
    assert.equal(e.data, { field: '(options)' });
  }
});

test('an unknown top-level option names the closest one and lists the known ones', () => {
  const e = thrown({ ulr: 'file:x' });
  assert.is(e.message, 'demo(): option ulr must be removed (did you mean "url"?) (known options: limits, url)');
  assert.is(thrown({ zzzzzz: 1 }).message, 'demo(): option zzzzzz must be removed (known options: limits, url)', 'nothing close: no suggestion');
  assert.equal(e.data, { field: 'ulr' });
});

test.run();
