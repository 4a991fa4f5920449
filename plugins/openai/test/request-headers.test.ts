// The headers a plugin puts on a model request (`ChatRequest.headers`: a tracing plugin's W3C
// `traceparent`) reach the server on every attempt, streamed or not, beside the configured ones.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Plugin } from '@oryxos/kernel';
import { testKernel } from '@oryxos/kernel/testing';
import { completion, openaiServer, textStream } from './helpers/openai-server.ts';
import openai from '../src/index.ts';

/** Puts `traceparent: 00-<trace>-<attempt n>-01` on every attempt, as a tracer would. */
const tracer: Plugin = {
  name: 'tracer', version: '1.0.0', kernel: '^1',
  setup(ctx) {
    ctx.hooks.beforeLLM.tapPromise(async (info) => {
      info.request.headers = { ...info.request.headers, traceparent: `00-${'a'.repeat(32)}-${String(info.attempt).padStart(16, '0')}-01` };
    });
  },
};

for (const stream of [false, true]) {
  test(`request headers go on every attempt (${stream ? 'streamed' : 'whole'}), with the configured headers kept`, async () => {
    const answer = stream ? { events: textStream(['hi']) } : { json: completion({ content: 'hi' }) };
    const server = await openaiServer([{ status: 503, json: { error: { message: 'busy' } } }, answer]);
    const t = await testKernel({ plugins: [openai({ baseURL: server.url, apiKey: 'sk-test', defaultModel: 'm', headers: { 'x-proxy': 'p' }, retryBaseDelayMs: 1 }), tracer] });
    try {
      const r = await t.service.process({ agent: 'assistant', message: 'go', stream });
      assert.is(r.answer, 'hi');
      assert.equal(server.requests.map((q) => [q.headers.traceparent, q.headers['x-proxy']]), [
        [`00-${'a'.repeat(32)}-0000000000000001-01`, 'p'],
        [`00-${'a'.repeat(32)}-0000000000000002-01`, 'p'],
      ]);
    } finally {
      await t.close();
      await server.close();
    }
  });
}

test.run();
