import { type } from 'arktype';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { lazyType } from '../src/lazy-type.ts';

test('a lazy type is built on first use, once, and then behaves as the type: calls, members, getters, errors', () => {
  let builds = 0;
  const Body = lazyType(() => { builds++; return type({ message: 'string > 0', '+': 'reject' }); });
  assert.is(builds, 0, 'not built when declared');
  assert.equal(Body({ message: 'hi' }), { message: 'hi' });
  assert.is(builds, 1);
  const bad = Body({ message: '', extra: 1 });
  assert.ok(bad instanceof type.errors);
  assert.match((bad as InstanceType<typeof type.errors>).summary, 'message must be non-empty');
  assert.equal((Body.in.toJsonSchema() as { required: string[] }).required, ['message']);
  assert.equal(type({ body: Body })({ body: { message: 'x' } }), { body: { message: 'x' } }, 'usable inside another definition');
  assert.is(builds, 1, 'built once');
});

test.run();
