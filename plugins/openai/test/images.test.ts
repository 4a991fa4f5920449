// Images and the per-server options: which models take images, where images go on the
// chat-completions wire (content parts of user messages; a tool's images in a user message
// after the results, since tool messages take text only), and the output cap's field.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isOryxError } from '@oryxos/provider-spec';
import { wireKernel } from '@oryxos/provider-kit/testing';
import openai from '../src/index.ts';
import { resolveSettings } from '../src/options.ts';
import { completion, openaiDialect } from './helpers/openai-server.ts';

const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

test('images: on for OpenAI\'s own API, off for another server, or by model name with *', () => {
  assert.is(resolveSettings({}, {}).images('gpt-4o-mini'), true);
  assert.is(resolveSettings({ baseURL: 'http://127.0.0.1:8000/v1' }, {}).images('qwen'), false);
  const some = resolveSettings({ baseURL: 'http://x/v1', images: ['qwen2.5-vl*', 'gpt-4o'] }, {});
  assert.equal(['qwen2.5-vl-7b', 'gpt-4o', 'gpt-4o-mini', 'llama3'].map(some.images), [true, true, false, false]);
  assert.is(resolveSettings({}, {}).maxTokensField, 'max_completion_tokens');
  assert.is(resolveSettings({ baseURL: 'http://x/v1' }, {}).maxTokensField, 'max_tokens');
  try { openai({ reasoningEcho: 'sometimes' as never }); assert.unreachable(); } catch (e) {
    assert.ok(isOryxError(e));
    assert.match(e.message, 'reasoningEcho');
  }
});

test('a user\'s image goes as an image_url data URL; a tool\'s images follow the tool results as one user message; supports() says so', async () => {
  const s = await wireKernel(openaiDialect, [{ json: completion({ content: 'a dot' }) }], { images: ['vision-*'] });
  try {
    const provider = s.t.kernel.provider('openai');
    assert.equal([provider.supports?.('vision-1'), provider.supports?.('text-1')], [{ images: true }, { images: false }]);
    await provider.chat({
      model: 'vision-1', tools: [],
      messages: [
        { role: 'user', content: 'What is this?', parts: [{ type: 'image', mediaType: 'image/png', data: png }] },
        { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'shot', args: {} }, { id: 'c2', name: 'note', args: {} }] },
        { role: 'tool', toolCallId: 'c1', name: 'shot', content: 'a screenshot', parts: [{ type: 'image', mediaType: 'image/png', data: png }] },
        { role: 'tool', toolCallId: 'c2', name: 'note', content: 'noted' },
      ],
    });
    const sent = s.server.requests[0]!.body.messages;
    assert.equal(sent[0], { role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } }] });
    assert.equal(sent.slice(2).map((m: any) => m.role), ['tool', 'tool', 'user'], 'the images come after every result of the step');
    assert.equal(sent[4].content[1], { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } });
    assert.match(sent[4].content[0].text, 'shot c1');
  } finally { await s.cleanup(); }
});

test('a model that takes no images gets none on the wire (the kernel notes them instead)', async () => {
  const s = await wireKernel(openaiDialect, [{ json: completion({ content: 'ok' }) }], {});
  try {
    await s.t.kernel.provider('openai').chat({ model: 'm', tools: [], messages: [{ role: 'user', content: 'hi', parts: [{ type: 'image', mediaType: 'image/png', data: png }] }] });
    assert.equal(s.server.requests[0]!.body.messages, [{ role: 'user', content: 'hi' }]);
  } finally { await s.cleanup(); }
});

test.run();
