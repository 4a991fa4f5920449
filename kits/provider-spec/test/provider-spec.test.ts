// The helpers @oryxos/provider-spec exports: the one error class (recognised across copies of
// the package), errorMessage / toOryxError, and the part and metadata readers providers use.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  OryxError, errorMessage, isOryxError, mediaOf, metadataFor, reasoningOf, toOryxError, type AssistantMessage, type Message,
} from '../src/index.ts';

test('OryxError carries code, message, hint, retryable, retryAfterMs, data and cause; toJSON shows code, message and hint', () => {
  const cause = new Error('socket hang up');
  const e = new OryxError('ORYX_E_LLM_RATE_LIMITED', 'the server said 429', { hint: 'Wait, or raise your quota.', retryable: true, retryAfterMs: 1500, data: { status: 429 }, cause });
  assert.ok(e instanceof Error);
  assert.is(e.name, 'OryxError');
  assert.equal([e.code, e.message, e.hint, e.retryable, e.retryAfterMs, e.data, e.cause], ['ORYX_E_LLM_RATE_LIMITED', 'the server said 429', 'Wait, or raise your quota.', true, 1500, { status: 429 }, cause]);
  assert.is(JSON.stringify(e), '{"code":"ORYX_E_LLM_RATE_LIMITED","message":"the server said 429","hint":"Wait, or raise your quota."}');
  const bare = new OryxError('ORYX_E_X', 'plain');
  assert.is(bare.retryable, false, 'not retryable unless said');
  assert.is(bare.cause, undefined);
  assert.not.ok('cause' in bare, 'no cause property when none was given');
  assert.equal(bare.toJSON(), { code: 'ORYX_E_X', message: 'plain' }, 'no hint key without a hint');
});

test('isOryxError recognises an OryxError by its brand, also one made by another copy of the package; nothing else', async () => {
  assert.ok(isOryxError(new OryxError('ORYX_E_X', 'x')));
  // A second copy of the module (another install of the package): another class, the same brand.
  const copy = await import(`../src/errors.ts?copy=${Date.now()}`) as typeof import('../src/errors.ts');
  const foreign = new copy.OryxError('ORYX_E_Y', 'y');
  assert.not.ok(foreign instanceof OryxError, 'a different class');
  assert.ok(isOryxError(foreign), 'still recognised');
  for (const value of [new Error('x'), { code: 'ORYX_E_X', message: 'x' }, null, undefined, 'ORYX_E_X', 42]) assert.not.ok(isOryxError(value), String(value));
});

test('errorMessage gives the message of an Error and the string of anything else', () => {
  assert.is(errorMessage(new TypeError('bad type')), 'bad type');
  assert.is(errorMessage('just text'), 'just text');
  assert.is(errorMessage(404), '404');
  assert.is(errorMessage(undefined), 'undefined');
});

test('toOryxError keeps an OryxError as it is and wraps anything else with the code, the cause and the options', () => {
  const kept = new OryxError('ORYX_E_KEEP', 'kept');
  assert.is(toOryxError(kept, 'ORYX_E_OTHER'), kept);
  const cause = new Error('ECONNRESET');
  const wrapped = toOryxError(cause, 'ORYX_E_LLM_CONNECTION', { retryable: true, hint: 'Check the network.' });
  assert.ok(isOryxError(wrapped));
  assert.equal([wrapped.code, wrapped.message, wrapped.cause, wrapped.retryable, wrapped.hint], ['ORYX_E_LLM_CONNECTION', 'ECONNRESET', cause, true, 'Check the network.']);
  assert.is(toOryxError('text thrown', 'ORYX_E_Z').message, 'text thrown');
});

const image = { type: 'image' as const, mediaType: 'image/png', data: 'iVBORw0KGgo=' };
const file = { type: 'file' as const, mediaType: 'application/pdf', data: 'JVBERi0=', name: 'a.pdf' };
const reasoning = { type: 'reasoning' as const, text: 'first I read the file', metadata: { anthropic: { signature: 'sig' } } };

test('mediaOf gives the images and files of a user or tool message, in order; none for system and assistant messages', () => {
  assert.equal(mediaOf({ role: 'user', content: 'what is this?', parts: [image, file] }), [image, file]);
  assert.equal(mediaOf({ role: 'tool', toolCallId: 'c1', content: 'a screenshot', parts: [image] } as Message), [image]);
  assert.equal(mediaOf({ role: 'user', content: 'no parts' }), []);
  assert.equal(mediaOf({ role: 'system', content: 'be brief' }), []);
  assert.equal(mediaOf({ role: 'assistant', content: '', parts: [reasoning] }), []);
});

test('reasoningOf gives only the reasoning parts of an assistant message', () => {
  const message: AssistantMessage = { role: 'assistant', content: 'done', parts: [reasoning, { ...reasoning, text: 'then I wrote it', redacted: 'EncRypt3d' }] };
  assert.equal(reasoningOf(message).map((r) => r.text), ['first I read the file', 'then I wrote it']);
  assert.equal(reasoningOf({ role: 'assistant', content: 'plain' }), []);
  assert.equal(reasoningOf({ role: 'user', content: 'hi', parts: [image] }), []);
});

test('metadataFor reads only the named provider\'s own metadata from a part, a call or a message', () => {
  const call = { id: 'c1', name: 'read_file', args: {}, metadata: { gemini: { thoughtSignature: 'Ct0B' }, other: { x: 1 } } };
  assert.equal(metadataFor(call, 'gemini'), { thoughtSignature: 'Ct0B' });
  assert.equal(metadataFor(reasoning, 'anthropic'), { signature: 'sig' });
  assert.is(metadataFor(call, 'deepseek'), undefined);
  assert.is(metadataFor({}, 'gemini'), undefined);
  assert.is(metadataFor(undefined, 'gemini'), undefined);
});

test.run();
