// Images on Ollama's /api/chat: base64 strings in `images`, on the user message and on the tool
// message that returned them, for the models `images` names; none for the others.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { wireKernel } from '@oryxos/provider-kit/testing';
import { chatResponse, ollamaDialect } from './helpers/ollama-server.ts';

const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

test('images go as `images` to a model that takes them, and nowhere for one that does not', async () => {
  const s = await wireKernel(ollamaDialect, [{ json: chatResponse({ content: 'a dot' }) }, { json: chatResponse({ content: 'text only' }) }], { images: ['llava*'] });
  try {
    const provider = s.t.kernel.provider('ollama');
    assert.equal([provider.supports?.('llava:13b'), provider.supports?.('qwen3')], [{ images: true }, { images: false }]);
    const messages = [
      { role: 'user' as const, content: 'What is this?', parts: [{ type: 'image' as const, mediaType: 'image/png', data: png }] },
      { role: 'assistant' as const, content: '', toolCalls: [{ id: 'c1', name: 'shot', args: {} }] },
      { role: 'tool' as const, toolCallId: 'c1', name: 'shot', content: 'screen', parts: [{ type: 'image' as const, mediaType: 'image/png', data: png }] },
    ];
    await provider.chat({ model: 'llava:13b', tools: [], messages });
    await provider.chat({ model: 'qwen3', tools: [], messages });
    const [withImages, without] = s.server.requests.map((r) => r.body.messages);
    assert.equal([withImages[0].images, withImages[2].images], [[png], [png]]);
    assert.equal([without[0].images, without[2].images], [undefined, undefined]);
  } finally { await s.cleanup(); }
});

test.run();
