import { readFile } from 'node:fs/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isOryxError } from '@oryxos/provider-spec';
import { readmeErrorCodes, testKernel } from '@oryxos/kernel/testing';
import ollama, { ERROR_CODES } from '../src/index.ts';
import { parseHost, resolveSettings } from '../src/options.ts';
import { ollamaServer, chatResponse } from './helpers/ollama-server.ts';

function throws(fn: () => unknown): { code: string; message: string; hint?: string } {
  try { fn(); } catch (error) {
    assert.ok(isOryxError(error), 'an OryxError');
    return error;
  }
  throw new Error('expected a throw');
}

test('options are validated at once and the error names the field', () => {
  let e = throws(() => ollama({ keepAlive: 1.5 }));
  assert.is(e.code, 'ORYX_E_OLLAMA_OPTIONS');
  assert.match(e.message, 'keepAlive');
  assert.match(e.hint!, 'keepAlive');
  e = throws(() => ollama({ host: 'ftp://x' }));
  assert.match(e.message, 'host must be');
  e = throws(() => ollama({ timeoutMs: 0 }));
  assert.match(e.message, 'timeoutMs');
  e = throws(() => ollama({ model: 'x' } as never));
  assert.match(e.message, 'model must be removed');
  assert.is(ollama({ keepAlive: -1 }).name, 'ollama');
  assert.is(ollama({ keepAlive: '5m', host: undefined }).name, 'ollama');
});

test('host forms resolve like the SDK resolves them; OLLAMA_HOST is read at setup', () => {
  assert.is(parseHost('127.0.0.1:11434'), 'http://127.0.0.1:11434');
  assert.is(parseHost('gpu-box'), 'http://gpu-box:11434');
  assert.is(parseHost(':9999'), 'http://127.0.0.1:9999');
  assert.is(parseHost('https://ollama.internal/'), 'https://ollama.internal:443');
  assert.is(resolveSettings({}, {}).url, 'http://127.0.0.1:11434');
  assert.is(resolveSettings({}, { OLLAMA_HOST: '0.0.0.0:11500' }).url, 'http://127.0.0.1:11500');
  assert.is(resolveSettings({ host: 'http://h:1' }, { OLLAMA_HOST: 'other:2' }).url, 'http://h:1');
  assert.is(throws(() => resolveSettings({}, { OLLAMA_HOST: 'ftp://bad' })).code, 'ORYX_E_OLLAMA_OPTIONS');
});

test('OLLAMA_HOST from the environment is used when host is not given', async () => {
  const s = await ollamaServer([{ json: chatResponse({ content: 'env host' }) }]);
  const saved = process.env.OLLAMA_HOST;
  const plugin = ollama({ defaultModel: 'm' });
  process.env.OLLAMA_HOST = s.url;
  try {
    const t = await testKernel({ plugins: [plugin] });
    try {
      assert.is((await t.service.process({ agent: 'assistant', message: 'hi' })).answer, 'env host');
    } finally { await t.close(); }
  } finally {
    if (saved === undefined) delete process.env.OLLAMA_HOST; else process.env.OLLAMA_HOST = saved;
    await s.close();
  }
});

test('several instances coexist under different names', async () => {
  const a = await ollamaServer([{ json: chatResponse({ content: 'A' }) }]);
  const b = await ollamaServer([{ json: chatResponse({ content: 'B' }) }]);
  const t = await testKernel({
    plugins: [ollama({ host: a.url, defaultModel: 'ma' }), ollama({ name: 'gpu', host: b.url, defaultModel: 'mb', headers: { 'x-proxy-key': 's3' } })],
    agents: { one: { provider: 'ollama' }, two: { provider: 'gpu' } },
  });
  try {
    assert.equal(t.kernel.plugins.map((p) => p.name), ['ollama', 'ollama:gpu']);
    assert.is((await t.service.process({ agent: 'one', message: 'hi' })).answer, 'A');
    assert.is((await t.service.process({ agent: 'two', message: 'hi' })).answer, 'B');
    assert.is(b.requests[0]!.body.model, 'mb');
    assert.is(b.requests[0]!.headers['x-proxy-key'], 's3');
  } finally {
    await t.close(); await a.close(); await b.close();
  }
});

test('the README lists exactly the exported error codes', async () => {
  const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
  assert.equal(readmeErrorCodes(readme), { ...ERROR_CODES });
});

test.run();
