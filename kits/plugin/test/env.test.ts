import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Kernel, resolveConfig } from '@oryxos/kernel';
import { env, isEnvRef, readEnv } from '../src/index.ts';

test('env() names a variable without its value; readEnv reads it and registers it, so it is masked', () => {
  const ref = env('MY_PLUGIN_TOKEN');
  assert.ok(isEnvRef(ref));
  assert.not.ok(isEnvRef('MY_PLUGIN_TOKEN'));
  assert.is(JSON.stringify({ token: ref }), '{"token":"env(MY_PLUGIN_TOKEN)"}', 'what a config dump shows');
  assert.is(String(ref), 'env(MY_PLUGIN_TOKEN)');
  const secrets = new Kernel({ config: resolveConfig({ plugins: [] }, process.cwd()) }).secrets;
  const from = { MY_PLUGIN_TOKEN: 'tok-0123456789abcdef' };
  assert.is(secrets.mask('tok-0123456789abcdef'), 'tok-0123456789abcdef', 'nothing registered yet');
  assert.is(readEnv(ref, secrets, from), 'tok-0123456789abcdef');
  assert.is(secrets.mask('the token is tok-0123456789abcdef.'), 'the token is ***.');
  assert.is(readEnv('MY_PLUGIN_TOKEN', secrets, from), 'tok-0123456789abcdef', 'a variable name works too');
  assert.is(readEnv(env('UNSET_VARIABLE'), secrets, from), undefined);
  assert.is(readEnv(env('EMPTY'), secrets, { EMPTY: '' }), undefined);
  assert.is(secrets.size, 1);
});

test.run();
