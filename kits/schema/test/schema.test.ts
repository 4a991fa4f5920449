import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_SCHEMA_CHARS, SchemaError, compileSchema } from '../src/index.ts';

test('a catastrophic pattern is checked in linear time on RE2', async () => {
  const { check } = await compileSchema({ type: 'string', pattern: '^(a+)+$' });
  assert.is(check(`${'a'.repeat(50_000)}!`), '(arguments): must match pattern "^(a+)+$"');
  assert.is(check('a'.repeat(50_000)), undefined);
});

test('an invalid schema is a SchemaError saying why, naming nothing it does not know', async () => {
  for (const [schema, why] of [
    [[], 'it is not a JSON object'],
    [{ required: 5 }, 'required must be array'],
    [{ pattern: '(' }, 'Invalid regular expression'],
    [{ description: 'x'.repeat(MAX_SCHEMA_CHARS) }, `more than the ${MAX_SCHEMA_CHARS}`],
  ] as const) {
    const error = await compileSchema(schema as never).then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof SchemaError, String(error));
    assert.match((error as SchemaError).message, why);
  }
});

test('each schema object is compiled once; a pattern RE2 cannot run is listed, not run', async () => {
  const schema = { type: 'object', properties: { p: { type: 'string', pattern: '^(?=.*\\d)(a|a)*$' } } };
  const first = await compileSchema(schema);
  assert.is(await compileSchema(schema), first);
  assert.equal(first.unchecked, ['^(?=.*\\d)(a|a)*$']);
  assert.is(first.check({ p: `${'a'.repeat(40)}!` }), undefined);
});

test.run();
