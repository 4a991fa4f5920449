// The tokens of a run as the `oryx run` footer shows them: the cached part only when the
// provider reported it, so "not reported" never reads as "nothing cached".
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tokensText } from '@oryxos/command-kit';

test('tokensText: cached and written only when reported; a reported 0 is shown', () => {
  assert.is(tokensText({ inputTokens: 1234, outputTokens: 56 }), '1234 in / 56 out tokens');
  assert.is(tokensText({ inputTokens: 1234, outputTokens: 56, cacheReadTokens: 1000 }), '1234 in (1000 cached) / 56 out tokens');
  assert.is(tokensText({ inputTokens: 1234, outputTokens: 56, cacheReadTokens: 0 }), '1234 in (0 cached) / 56 out tokens');
  assert.is(tokensText({ inputTokens: 1234, outputTokens: 56, cacheReadTokens: 1000, cacheWriteTokens: 200 }), '1234 in (1000 cached, 200 written to cache) / 56 out tokens');
});

test.run();
