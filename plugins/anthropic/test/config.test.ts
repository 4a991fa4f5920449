import { readFile } from 'node:fs/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isOryxError } from '@oryxos/provider-spec';
import { readmeErrorCodes, testKernel } from '@oryxos/kernel/testing';
import anthropic, { ERROR_CODES } from '../src/index.ts';
import { resolveSettings } from '../src/options.ts';
import { anthropicServer, message } from './helpers/anthropic-server.ts';

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
  let e = throws(() => anthropic({ maxTokens: 0 }));
  assert.is(e.code, 'ORYX_E_ANTHROPIC_OPTIONS');
  assert.match(e.message, 'maxTokens');
  e = throws(() => anthropic({ thinking: { budgetTokens: 100 } }));
  assert.match(e.message, 'budgetTokens');
  e = throws(() => anthropic({ thinking: { budgetTokens: 9000 }, maxTokens: 8192 }));
  assert.match(e.message, 'must be below maxTokens');
  assert.match(e.hint!, 'raise maxTokens');
  e = throws(() => anthropic({ apiKy: 'x' } as never));
  assert.match(e.message, 'apiKy must be removed');
  assert.is(anthropic({ apiKey: undefined }).name, 'anthropic');
  assert.is(anthropic({ name: 'claude' }).name, 'anthropic:claude');
});

test('ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL are read at setup, not at import; betas become the anthropic-beta header', async () => {
  const s = await anthropicServer([{ json: message({ content: 'env works' }) }]);
  try {
    const plugin = anthropic({ defaultModel: 'm', betas: ['interleaved-thinking-2025-05-14'] });
    await withEnv({ ANTHROPIC_API_KEY: 'sk-ant-from-env', ANTHROPIC_BASE_URL: s.url }, async () => {
      const t = await testKernel({ plugins: [plugin] });
      try {
        assert.is((await t.service.process({ agent: 'assistant', message: 'hi' })).answer, 'env works');
        assert.is(t.kernel.secrets.mask('sk-ant-from-env'), '***', 'the key is a kernel secret');
      } finally { await t.close(); }
    });
    const headers = s.requests[0]!.headers;
    assert.is(headers['x-api-key'] ?? String(headers.authorization).replace(/^Bearer /, ''), 'sk-ant-from-env');
    assert.is(headers['anthropic-beta'], 'interleaved-thinking-2025-05-14');
  } finally { await s.close(); }
});

test('no key: a clear error at the first call naming ANTHROPIC_API_KEY (setup does not fail)', async () => {
  await withEnv({ ANTHROPIC_API_KEY: undefined }, async () => {
    const t = await testKernel({ plugins: [anthropic({ defaultModel: 'claude-sonnet-4-5' })] });
    try {
      const r = await t.service.process({ agent: 'assistant', message: 'hi' });
      assert.is(r.error?.code, 'ORYX_E_ANTHROPIC_NO_API_KEY');
      assert.match(r.error!.message, 'ANTHROPIC_API_KEY');
      assert.match(r.error!.hint!, 'ANTHROPIC_API_KEY');
    } finally { await t.close(); }
  });
});

test('defaults: 8192 max tokens, caching on, the shared call limits', () => {
  const settings = resolveSettings({}, {});
  assert.equal([settings.maxTokens, settings.cache, settings.timeoutMs, settings.callTimeoutMs, settings.baseURL], [8192, true, 60_000, 180_000, undefined]);
});

test('the README lists exactly the exported error codes', async () => {
  const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
  assert.equal(readmeErrorCodes(readme), { ...ERROR_CODES });
});

test.run();
