import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { redactUrl, redactUrls, urlCredentials } from '../src/index.ts';

test('redactUrl shows a URL\'s user name and password as ***, and leaves a URL without them as it is', () => {
  assert.is(redactUrl('http://bot:s3cret@proxy.internal:8080/v1'), 'http://***@proxy.internal:8080/v1');
  assert.is(redactUrl('https://TOKEN123456@host/v1?x=1'), 'https://***@host/v1?x=1');
  assert.is(redactUrl('http://127.0.0.1:1234/v1'), 'http://127.0.0.1:1234/v1');
  assert.is(redactUrl('http://host/v1/a@b'), 'http://host/v1/a@b', 'an @ in the path is no credential');
  assert.is(redactUrl(redactUrl('http://u:p@h')), 'http://***@h');
});

test('redactUrls finds every URL with credentials in a text (an error that quotes the URL it failed on)', () => {
  assert.is(redactUrls('Request cannot be constructed from a URL that includes credentials: http://bot:pw@h:9/v1/chat/completions'),
    'Request cannot be constructed from a URL that includes credentials: http://***@h:9/v1/chat/completions');
  assert.is(redactUrls('a http://u:p@one/x and "https://t@two/y"'), 'a http://***@one/x and "https://***@two/y"');
  assert.is(redactUrls('mail bot@example.com at http://host/'), 'mail bot@example.com at http://host/');
});

test('urlCredentials: the password as written and decoded, or the user name when it is the only credential', () => {
  assert.equal(urlCredentials('http://bot:s3cr%40t-long@proxy/v1'), ['s3cr%40t-long', 's3cr@t-long']);
  assert.equal(urlCredentials('http://bot:plainpassword@proxy/v1'), ['plainpassword']);
  assert.equal(urlCredentials('https://ghp_tokenvalue123@host/'), ['ghp_tokenvalue123']);
  assert.equal(urlCredentials('http://bot:@host/'), []);
  assert.equal(urlCredentials('http://host/'), []);
  assert.equal(urlCredentials(undefined), []);
  assert.equal(urlCredentials('http://bot:%E0%A4%A@host/'), ['%E0%A4%A'], 'not decodable: as written');
});

test.run();
