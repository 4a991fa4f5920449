// A password in OLLAMA_HOST (a proxy in front of Ollama, issue 34) is registered as a secret, and an
// OLLAMA_HOST that cannot be used is named in the error without it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
/** What the kernel's secret masking writes in place of a value (kernel/src/secrets.ts). */
const MASK = '***';
import type { OryxError } from '@oryxos/provider-spec';
import { testKernel } from '@oryxos/kernel/testing';
import ollama from '../src/index.ts';

const PASSWORD = 'ollama-proxy-pass-4242';

test('OLLAMA_HOST with a password: registered as a secret; a host that cannot be used is named without it', async () => {
  const saved = process.env.OLLAMA_HOST;
  try {
    process.env.OLLAMA_HOST = `http://bot:${PASSWORD}@127.0.0.1:9`;
    const t = await testKernel({ plugins: [ollama({ defaultModel: 'm' })], agents: { assistant: { tools: [] } } });
    try {
      assert.is(t.kernel.secrets.mask(`a ${PASSWORD} b`), `a ${MASK} b`);
    } finally {
      await t.close();
    }
    process.env.OLLAMA_HOST = `ftp://bot:${PASSWORD}@127.0.0.1:9`;
    const e = await testKernel({ plugins: [ollama({ defaultModel: 'm' })] }).then(() => undefined, (error: OryxError) => error);
    assert.ok(e, 'refused');
    assert.match(e!.message, 'ftp://***@127.0.0.1:9');
    assert.not.ok(`${e!.message} ${e!.hint ?? ''} ${String((e as { cause?: { message?: string } }).cause?.message ?? '')}`.includes(PASSWORD), e!.message);
  } finally {
    if (saved === undefined) delete process.env.OLLAMA_HOST; else process.env.OLLAMA_HOST = saved;
  }
});

test.run();
