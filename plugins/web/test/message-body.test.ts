// The message body of POST /api/sessions/:id/messages is checked by a shape (`@oryxos/schema-kit`,
// as every request is): its problems name the field, what was wrong and what was given.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startWeb } from './helpers.ts';

test('a bad message body is 400 naming the field, the problem and what was given; the document keeps its schema', async () => {
  const h = await startWeb({ listen: false });
  try {
    const id = (await h.kernel.service('sessions').create({ agent: 'assistant' })).id;
    const send = async (body: string) => {
      const res = await h.web.app.request(`/api/sessions/${id}/messages`, { method: 'POST', headers: { 'content-type': 'application/json', ...h.auth }, body });
      return { status: res.status, error: ((await res.json()) as any).error };
    };
    const cases: [string, string, string][] = [
      ['{"message":5}', 'message', 'message must be a string (was a number)'],
      ['{}', 'message', 'message must be a string (was missing)'],
      ['{"message":""}', 'message', 'message must be non-empty'],
      ['{"message":" \\n"}', 'message', 'message must be text, not only whitespace (was only whitespace)'],
      ['{"message":"a\\u0000"}', 'message', 'message must be text without NUL characters or lone surrogates (was a NUL character (U+0000) at index 1)'],
      ['{"message":"hi","colour":"red"}', 'colour', 'colour must be removed (the body takes: message)'],
      ['[]', 'body', 'body must be an object (was an array)'],
      ['null', 'body', 'body must be an object (was null)'],
    ];
    for (const [body, field, message] of cases) {
      const { status, error } = await send(body);
      assert.is(status, 400, body);
      assert.is(error.code, 'ORYX_E_WEB_BAD_REQUEST', body);
      assert.is(error.message, message, body);
      assert.match(error.hint, field === 'body' ? 'the body' : `"${field}"`, body);
    }
    assert.is((await h.kernel.service('sessions').messages(id)).length, 0, 'nothing was written');
    const schema = h.web.openapi().paths['/api/sessions/{id}/messages'].post.requestBody.content['application/json'].schema;
    assert.equal(schema, { type: 'object', properties: { message: { type: 'string', minLength: 1 } }, required: ['message'], additionalProperties: false });
  } finally {
    await h.close();
  }
});

test('a query is checked against its shape and a page size reaches the route as a number; other parameters stay text', async () => {
  const { checkQuery } = await import('../src/body.ts');
  const { ListSessionsQuery } = await import('../src/schemas.ts');
  assert.equal(checkQuery(ListSessionsQuery, { limit: '5', agent: 'a' }), { limit: 5, agent: 'a' });
  assert.equal(checkQuery(ListSessionsQuery, { agent: 'a' }), { agent: 'a' }, 'an absent limit stays absent');
  try {
    checkQuery(ListSessionsQuery, { limit: '0' });
    assert.unreachable('a limit of 0 is refused');
  } catch (error) {
    assert.is((error as { code?: string }).code, 'ORYX_E_WEB_BAD_REQUEST');
    assert.match((error as Error).message, 'query parameter limit must be a whole number from 1 to 100 (was "0")');
  }
});

test.run();
