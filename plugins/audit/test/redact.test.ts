import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createRedactor } from '../src/index.ts';

const redact = createRedactor();

test('the default patterns redact common keys and tokens', () => {
  const cases: [string, string][] = [
    ['key sk-abcdefghijklmnop1234 end', 'key [REDACTED] end'],
    ['sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv', '[REDACTED]'],
    ['aws AKIAIOSFODNN7EXAMPLE ok', 'aws [REDACTED] ok'],
    ['ghp_0123456789abcdefghijABCDEFGHIJ012345', '[REDACTED]'],
    ['github_pat_11ABCDEFG0123456789_abcdefghijklmnop', '[REDACTED]'],
    ['xoxb-1234567890-abcdefghij', '[REDACTED]'],
    ['Authorization: Bearer abc.def-ghi_jkl', 'Authorization: Bearer [REDACTED]'],
    ['https://x.test/?api_key=s3cr3t&q=1', 'https://x.test/?api_key=[REDACTED]&q=1'],
    ['{"apiKey":"abc123","n":1}', '{"apiKey":"[REDACTED]","n":1}'],
    ['X-API-KEY: topsecret', 'X-API-KEY: [REDACTED]'],
    ['password = hunter2', 'password = [REDACTED]'],
  ];
  for (const [input, expected] of cases) assert.is(redact(input), expected, input);
});

test('ordinary text is left alone', () => {
  for (const text of ['task-manager is running', 'sk-short', 'the bearer of bad news', 'keyboard api design', 'AKIA is a prefix']) {
    assert.is(redact(text), text);
  }
});

test('user patterns: literal strings (special characters included) and regexes without the g flag replace every match', () => {
  const r = createRedactor({ redact: ['a.b(c)', /tok-\d+/] });
  assert.is(r('a.b(c) axb(c) tok-1 tok-22'), '[REDACTED] axb(c) [REDACTED] [REDACTED]');
});

test.run();
