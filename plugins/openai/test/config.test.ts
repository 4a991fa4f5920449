import { readFile } from 'node:fs/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isOryxError } from '@oryxos/provider-spec';
import { readmeErrorCodes, testKernel } from '@oryxos/kernel/testing';
import openai, { ERROR_CODES } from '../src/index.ts';
import { openaiServer, completion } from './helpers/openai-server.ts';

function throws(fn: () => unknown): { code: string; message: string; hint?: string } {
  try { fn(); } catch (error) {
    assert.ok(isOryxError(error), 'an OryxError');
    return error;
  }
  throw new Error('expected a throw');
}

/** Runs `fn` with the given environment variables set (undefined = unset), then restores them. */
async function withEnv<T>(vars: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const apply = (v: Record<string, string | undefined>) => {
    for (const [k, val] of Object.entries(v)) { if (val === undefined) delete process.env[k]; else process.env[k] = val; }
  };
  apply(vars);
  try { return await fn(); } finally { apply(saved); }
}

test('options are validated at once and the error names the field', () => {
  let e = throws(() => openai({ timeoutMs: -5 }));
  assert.is(e.code, 'ORYX_E_OPENAI_OPTIONS');
  assert.match(e.message, 'timeoutMs must be positive');
  assert.match(e.hint!, 'timeoutMs');
  e = throws(() => openai({ baseURL: 'not a url' }));
  assert.match(e.message, 'baseURL');
  e = throws(() => openai({ apiKy: 'x' } as never));
  assert.match(e.message, 'apiKy must be removed');
  e = throws(() => openai({ maxRetries: 1.5 }));
  assert.match(e.message, 'maxRetries must be an integer');
  e = throws(() => openai({ name: 'has space' }));
  assert.match(e.message, 'name');
  // undefined means "not set" (apiKey: process.env.SOMETHING that is unset)
  assert.is(openai({ apiKey: undefined }).name, 'openai');
});

test('plugin names are unique per instance so several instances coexist', async () => {
  const a = await openaiServer([{ json: completion({ content: 'from A' }) }]);
  const b = await openaiServer([{ json: completion({ content: 'from B' }) }]);
  const t = await testKernel({
    plugins: [
      openai({ baseURL: a.url, apiKey: 'k', defaultModel: 'ma' }),
      openai({ name: 'local', baseURL: b.url, defaultModel: 'mb' }),
    ],
    agents: { one: { provider: 'openai' }, two: { provider: 'local' } },
  });
  try {
    assert.equal(t.kernel.plugins.map((p) => p.name), ['openai', 'openai:local']);
    assert.equal(t.kernel.providerNames, ['openai', 'local']);
    assert.is((await t.service.process({ agent: 'one', message: 'hi' })).answer, 'from A');
    assert.is((await t.service.process({ agent: 'two', message: 'hi' })).answer, 'from B');
    assert.is(a.requests[0]!.body.model, 'ma');
    assert.is(b.requests[0]!.body.model, 'mb');
    // No key and a baseURL: a local server that takes none.
    assert.is(b.requests[0]!.headers.authorization, 'Bearer not-needed');
  } finally {
    await t.close(); await a.close(); await b.close();
  }
});

test('OPENAI_API_KEY and OPENAI_BASE_URL are read at setup, not at import', async () => {
  const s = await openaiServer([{ json: completion({ content: 'env works' }) }]);
  try {
    const plugin = openai({ defaultModel: 'm' });
    await withEnv({ OPENAI_API_KEY: 'sk-from-env', OPENAI_BASE_URL: s.url }, async () => {
      const t = await testKernel({ plugins: [plugin] });
      try {
        const r = await t.service.process({ agent: 'assistant', message: 'hi' });
        assert.is(r.answer, 'env works');
      } finally { await t.close(); }
    });
    assert.is(s.requests[0]!.headers.authorization, 'Bearer sk-from-env');
  } finally { await s.close(); }
});

test('no key and no baseURL: a clear error at the first call naming OPENAI_API_KEY', async () => {
  await withEnv({ OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined }, async () => {
    const t = await testKernel({ plugins: [openai({ defaultModel: 'gpt-4o-mini' })] });
    try {
      const r = await t.service.process({ agent: 'assistant', message: 'hi' });
      assert.is(r.stopReason, 'error');
      assert.is(r.error?.code, 'ORYX_E_OPENAI_NO_API_KEY');
      assert.match(r.error!.message, 'OPENAI_API_KEY');
      assert.match(r.error!.hint!, 'OPENAI_API_KEY');
    } finally { await t.close(); }
  });
});

test('the README lists exactly the exported error codes', async () => {
  const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
  assert.equal(readmeErrorCodes(readme), { ...ERROR_CODES });
});

test('the API key (from OPENAI_API_KEY or apiKey) and credential headers are kernel secrets: masked wherever OryxOS writes', async () => {
  await withEnv({ OPENAI_API_KEY: 'sk-from-the-environment-0123' }, async () => {
    const t = await testKernel({ plugins: [openai({ headers: { 'x-proxy-token': 'proxy-credential-456', 'x-trace': 'visible-trace-id' } })] });
    assert.is(t.kernel.secrets.mask('key sk-from-the-environment-0123, proxy-credential-456, visible-trace-id'), 'key ***, ***, visible-trace-id');
    await t.close();
  });
});

test.run();
