import { performance } from 'node:perf_hooks';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createRedactor, secretName } from '../src/redact.ts';

const redact = createRedactor();

// Real-looking keys, built here so no scanner mistakes this file for a leak.
const k = {
  openai: `sk-proj-${'Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z'.repeat(3)}`,
  openaiLegacy: `sk-${'Ab3dEf6hIj9kLm2nOp5q'}T3BlbkFJ${'Rs8tUv1wXy4zAb3dEf6h'}`,
  anthropic: `sk-ant-api03-${'aB3-dE6_gH9iJ2kL5mN8'.repeat(5).slice(0, 93)}AA`,
  stripe: `sk_live_${'51HqLyjWDarjtT1zdp7dc'}`,
  awsId: 'AKIA' + 'QWERTYUIOPASDFGH',
  awsSecret: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCY' + 'ZQ8sTr4vKp',
  github: `gho_${'16C7e42F292c6912E7710c838347Ae178B4a'}`,
  githubPat: `github_pat_${'11ABCDEFG0123456789abc'}_${'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVW'}`,
  slack: ['xoxb', '123456789012', '1234567890123', 'AbCdEfGhIjKlMnOpQrStUvWx'].join('-'),
  npm: `npm_${'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'}`,
  password: 'correct-horse-battery',
};

const ENV = [
  `OPENAI_API_KEY=${k.openai}`,
  `DB_PASSWORD=${k.password}`,
  `STRIPE_SECRET_KEY=${k.stripe}`,
  `AWS_ACCESS_KEY_ID=${k.awsId}`,
  `AWS_SECRET_ACCESS_KEY=${k.awsSecret}`,
  `GITHUB_TOKEN=${k.github}`,
  `ANTHROPIC_API_KEY=${k.anthropic}`,
  `SLACK_BOT_TOKEN=${k.slack}`,
  `export NPM_TOKEN="${k.npm}"`,
  'DATABASE_URL=postgres://app:s3cretPassw0rd@db.internal:5432/app',
  'MY_SERVICE_KEY=abcdef123456',
  "SESSION_SECRET='two words here'",
  'PORT=8080',
  'NODE_ENV=production',
].join('\n');

test('a .env file: every credential is redacted, names and ordinary settings stay', async () => {
  const out = await redact(ENV);
  for (const secret of [k.openai, k.password, k.stripe, k.awsId, k.awsSecret, k.github, k.anthropic, k.slack, k.npm, 's3cretPassw0rd', 'abcdef123456', 'two words here']) {
    assert.not.ok(out.includes(secret), `${secret} leaked:\n${out}`);
  }
  for (const kept of ['OPENAI_API_KEY=', 'DB_PASSWORD=', 'STRIPE_SECRET_KEY=', 'AWS_SECRET_ACCESS_KEY=', 'GITHUB_TOKEN=', 'PORT=8080', 'NODE_ENV=production', 'DATABASE_URL=']) {
    assert.ok(out.includes(kept), `${kept} was lost:\n${out}`);
  }
  assert.is(out.split('\n').length, ENV.split('\n').length);
});

test('JSON: credential fields (quoted values with spaces too), nested; other fields stay', async () => {
  const json = JSON.stringify({ password: 'hunter2 with spaces', api_key: 'abc123def456', clientSecret: 'x-y-z-123', nested: { refresh_token: '1//0gAbCdEf' }, max_tokens: 100, user: 'ada' });
  const out = await redact(json);
  for (const secret of ['hunter2 with spaces', 'abc123def456', 'x-y-z-123', '1//0gAbCdEf']) assert.not.ok(out.includes(secret), out);
  assert.ok(out.includes('"max_tokens":100') && out.includes('"user":"ada"'), out);
  assert.is(out, '{"password":"[REDACTED]","api_key":"[REDACTED]","clientSecret":"[REDACTED]","nested":{"refresh_token":"[REDACTED]"},"max_tokens":100,"user":"ada"}');
});

test('keys on their own, headers, URLs and YAML', async () => {
  const cases: [string, string][] = [
    [`key ${k.openaiLegacy} end`, 'key [REDACTED] end'],
    [`token ${k.github} end`, 'token [REDACTED] end'],
    [k.githubPat, '[REDACTED]'],
    [`aws ${k.awsId} ok`, 'aws [REDACTED] ok'],
    [`stripe ${k.stripe}.`, 'stripe [REDACTED].'],
    ['Authorization: Bearer abc.def-ghi_jkl', 'Authorization: Bearer [REDACTED]'],
    ['https://x.test/?api_key=s3cr3t&q=1', 'https://x.test/?api_key=[REDACTED]&q=1'],
    ['X-API-KEY: topsecret', 'X-API-KEY: [REDACTED]'],
    ['password: hunter2hunter2', 'password: [REDACTED]'],
    ['https://alice:pa55w0rd@example.com/x', '[REDACTED]/x'],
  ];
  for (const [input, expected] of cases) assert.is(await redact(input), expected, input);
});

test('a private key block is redacted', async () => {
  const body = 'MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MbN3uSCIYNwtTrkw\nqLuqRT6kjjPBBSz0OOfXGZIvDsy5W6eTJrZEu6WiLNtmxOovEBd2NqSp2WuYJUqy\n';
  const out = await redact(`before\n-----BEGIN RSA PRIVATE KEY-----\n${body}-----END RSA PRIVATE KEY-----\nafter`);
  assert.not.ok(out.includes('MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn'), out);
  assert.ok(out.startsWith('before\n') && out.endsWith('\nafter'), out);
});

test('a secretlint-disable comment in the text does not switch the scanner off', async () => {
  const out = await redact(`# secretlint-disable\nnote ${k.github}\n`);
  assert.not.ok(out.includes(k.github), out);
});

test('ordinary text is left alone', async () => {
  for (const text of ['task-manager is running', 'sk-short', 'the bearer of bad news', 'keyboard api design', 'AKIA is a prefix',
    'PWD=/home/me', 'key: value', 'monkey=banana', 'author: Ada', 'max_tokens: 100', 'tokens=5']) {
    assert.is(await redact(text), text);
  }
});

test('secretName: the last word of a name decides', () => {
  for (const name of ['OPENAI_API_KEY', 'DB_PASSWORD', 'GITHUB_TOKEN', 'clientSecret', 'refresh-token', 'x.auth', 'db_pwd', 'Authorization', 'apiKey', 'secret']) assert.ok(secretName(name), name);
  for (const name of ['key', 'PWD', 'monkey', 'author', 'max_tokens', 'keyboard', 'auth']) assert.not.ok(secretName(name), name);
});

test('the kernel\'s registered secrets are masked first, whatever their format', async () => {
  const r = createRedactor({ exact: (t) => t.replaceAll('plainword-secret-value', '***') });
  assert.is(await r('arg plainword-secret-value end'), 'arg *** end');
});

test('user patterns: literal strings (special characters included) and regexes without the g flag replace every match', async () => {
  const r = createRedactor({ redact: ['a.b(c)', /tok-\d+/] });
  assert.is(await r('a.b(c) axb(c) tok-1 tok-22'), '[REDACTED] axb(c) [REDACTED] [REDACTED]');
  const f = createRedactor({ redact: (t) => t.toUpperCase(), defaults: false });
  assert.is(await f(`DB_PASSWORD=${k.password}`), `DB_PASSWORD=${k.password.toUpperCase()}`);
});

test('several texts share one scan: each keeps its own text, a secret found in one is cut from it', async () => {
  const [input, output, plain] = await redact.all!([`{"token":"${k.github}"}`, `found ${k.npm} in .npmrc`, 'hi 1']);
  assert.is(input, '{"token":"[REDACTED]"}');
  assert.is(output, 'found [REDACTED] in .npmrc');
  assert.is(plain, 'hi 1');
});

test('a text scanned again (its result remembered, or forgotten after 256 others) is redacted the same way', async () => {
  // Only secretlint's rules find these (no credential name, no prefix of the extra patterns).
  const text = `the bot said ${k.slack} and ${k.awsId}`;
  const expected = 'the bot said [REDACTED] and [REDACTED]';
  assert.is(await redact(text), expected);
  assert.is(await redact(text), expected);
  const [again, other] = await redact.all!([text, `plain ${k.github}`]);
  assert.is(await redact(`${text}\n\nplain ${k.github}`), `${expected}\n\nplain [REDACTED]`);
  assert.equal([again, other], [expected, 'plain [REDACTED]']);
  for (let i = 0; i < 300; i++) assert.is(await redact(`note ${i}`), `note ${i}`);
  assert.is(await redact(text), expected);
  assert.is(await redact(`x${'y'.repeat(5000)} ${k.slack}`), `x${'y'.repeat(5000)} [REDACTED]`, 'a long text is scanned every time');
});

test('a scan leaves no performance marks behind (secretlint profiles every scan unless switched off, and each one cost more than the last)', async () => {
  await redact('warm-up');
  const marks = performance.getEntriesByType('mark').length;
  for (let i = 0; i < 5; i++) await redact(`hi ${i}`);
  assert.is(performance.getEntriesByType('mark').length, marks);
});

test.run();
