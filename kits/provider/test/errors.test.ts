import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LLM_ERROR_CODES as KERNEL_ERROR_CODES } from '../src/index.ts';
import { definedOptions, shape as s } from '@oryxos/schema-kit';
import {
  PROVIDER_CALL_DEFAULTS, PROVIDER_CALL_SHAPE, causeChain, providerAbortError, providerBadResponseError,
  providerConnectionError, providerLabel, providerStatusError, retryAfterMs, retryPolicy, type ProviderCall, type ProviderFix,
} from '../src/index.ts';

const ctx: ProviderCall = { provider: 'acme', model: 'm1', url: 'http://127.0.0.1:9/v1' };
const fix: ProviderFix = {
  unreachable: 'Start acme or fix acme({ url }).', timeout: 'timeoutMs in acme({ timeoutMs })', timeoutMs: 1234,
  hints: { ORYX_E_LLM_RATE_LIMIT: 'acme: slow down.' },
};
const status = (s: number, more: { message?: string; code?: string; headers?: Record<string, string> } = {}) => providerStatusError({
  status: s, message: more.message ?? 'boom', code: more.code, headers: new Headers(more.headers), ctx,
  keyHint: 'acme key hint', modelHint: 'acme model hint', hints: fix.hints,
});
const chain = (...codes: string[]) => codes.reduceRight<unknown>((cause, code) => Object.assign(new Error(`err ${code}`, { cause }), { code }), undefined);

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
}
const close = (server: Server) => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); });

test('retryAfterMs: retry-after-ms wins, then seconds, then an HTTP date; junk is ignored', () => {
  const now = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT');
  assert.is(retryAfterMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now), 250);
  assert.is(retryAfterMs(new Headers({ 'retry-after': '2' }), now), 2000);
  assert.is(retryAfterMs(new Headers({ 'retry-after': '0.5' }), now), 500);
  assert.is(retryAfterMs(new Headers({ 'retry-after': 'Wed, 21 Oct 2015 07:28:03 GMT' }), now), 3000);
  assert.is(retryAfterMs(new Headers({ 'retry-after': 'Wed, 21 Oct 2015 07:27:00 GMT' }), now), 0, 'a past date means now');
  assert.is(retryAfterMs(new Headers({ 'retry-after-ms': '-1', 'retry-after': 'soon' }), now), undefined);
  assert.is(retryAfterMs(new Headers(), now), undefined);
  assert.is(retryAfterMs(undefined, now), undefined);
});

test('status: auth, not found and bad request are final, with the provider\'s key and model hints', () => {
  const e401 = status(401, { message: 'Incorrect API key' });
  assert.is(e401.code, 'ORYX_E_LLM_AUTH');
  assert.is(e401.retryable, false);
  assert.is(e401.hint, 'acme key hint');
  assert.is(e401.message, `${providerLabel(ctx)}: authentication failed (HTTP 401): Incorrect API key`);
  assert.equal(e401.data, { status: 401, provider: 'acme', model: 'm1', url: ctx.url });
  const e403 = status(403);
  assert.is(e403.code, 'ORYX_E_LLM_AUTH');
  assert.match(e403.message, 'permission denied (HTTP 403)');
  const e404 = status(404);
  assert.equal([e404.code, e404.retryable, e404.hint], ['ORYX_E_LLM_NOT_FOUND', false, 'acme model hint']);
  const e400 = status(400, { message: '  ' });
  assert.equal([e400.code, e400.retryable], ['ORYX_E_LLM_BAD_REQUEST', false]);
  assert.match(e400.message, '(HTTP 400): HTTP 400', 'an empty server message falls back to the status');
  assert.match(e400.hint!, 'Read the server message');
});

test('status: a context-length 400 (by code or by message) points at settings.context_tokens', () => {
  const byCode = status(400, { code: 'context_length_exceeded', message: 'too long' });
  assert.match(byCode.hint!, 'context_tokens');
  assert.is(byCode.data?.errorCode, 'context_length_exceeded');
  assert.match(status(400, { message: "This model's maximum context length is 8192 tokens" }).hint!, 'context_tokens');
  assert.match(status(422, { message: 'bad tool schema' }).hint!, 'Read the server message');
});

test('status: 408, 409, 429 and 5xx are retryable; the provider\'s hint wins, the kernel\'s fills the gap', () => {
  const rows = [408, 409, 429, 500, 503].map((s) => { const e = status(s); return [s, e.code, e.retryable, e.hint]; });
  assert.equal(rows, [
    [408, 'ORYX_E_LLM_TIMEOUT', true, KERNEL_ERROR_CODES.ORYX_E_LLM_TIMEOUT],
    [409, 'ORYX_E_LLM_SERVER', true, KERNEL_ERROR_CODES.ORYX_E_LLM_SERVER],
    [429, 'ORYX_E_LLM_RATE_LIMIT', true, 'acme: slow down.'],
    [500, 'ORYX_E_LLM_SERVER', true, KERNEL_ERROR_CODES.ORYX_E_LLM_SERVER],
    [503, 'ORYX_E_LLM_SERVER', true, KERNEL_ERROR_CODES.ORYX_E_LLM_SERVER],
  ]);
  assert.is(status(429, { headers: { 'retry-after': '3' } }).retryAfterMs, 3000);
});

test('status: 429 insufficient_quota is final and says billing', () => {
  const e = status(429, { code: 'insufficient_quota', message: 'You exceeded your current quota' });
  assert.equal([e.code, e.retryable], ['ORYX_E_LLM_RATE_LIMIT', false]);
  assert.match(e.message, 'out of quota (HTTP 429)');
  assert.match(e.hint!, 'billing');
});

test('status: x-should-retry overrides the status in both directions', () => {
  assert.is(status(503, { headers: { 'x-should-retry': 'false' } }).retryable, false);
  assert.is(status(400, { headers: { 'x-should-retry': 'true' } }).retryable, true);
  assert.is(status(503, { headers: { 'x-should-retry': 'maybe' } }).retryable, true);
});

test('connection: a refused connection (ECONNREFUSED nested in cause) is UNREACHABLE, retryable, naming the URL', async () => {
  const { server, url } = await listen((_req, res) => res.end());
  await close(server);
  const error = await fetch(url).then(() => undefined, (e: unknown) => e);
  assert.ok(error, 'fetch to a closed port fails');
  assert.ok(causeChain(error).codes.includes('ECONNREFUSED'), 'undici nests ECONNREFUSED in cause');
  const e = providerConnectionError(error, { ...ctx, url }, fix);
  assert.is(e.code, 'ORYX_E_LLM_UNREACHABLE');
  assert.is(e.retryable, true);
  assert.is(e.message, `${providerLabel(ctx)}: could not reach ${url} (ECONNREFUSED)`);
  assert.is(e.hint, fix.unreachable);
  assert.is(e.data?.errno, 'ECONNREFUSED');
  assert.is(e.cause, error);
});

test('connection: ECONNRESET is a broken CONNECTION with the kernel hint when the provider has none', () => {
  const error = new TypeError('fetch failed', { cause: chain('ECONNRESET') });
  const e = providerConnectionError(error, ctx, fix);
  assert.equal([e.code, e.retryable, e.hint], ['ORYX_E_LLM_CONNECTION', true, KERNEL_ERROR_CODES.ORYX_E_LLM_CONNECTION]);
  assert.match(e.message, `the connection to ${ctx.url} broke mid-response (err ECONNRESET)`);
  assert.is(providerConnectionError(error, ctx, { ...fix, hints: { ORYX_E_LLM_CONNECTION: 'acme logs' } }).hint, 'acme logs');
});

test('connection: a server that hangs up mid-body is a broken CONNECTION', async () => {
  const { server, url } = await listen((_req, res) => { res.writeHead(200, { 'content-length': '100' }); res.write('partial'); setTimeout(() => res.socket?.destroy(), 20); });
  try {
    const error = await fetch(url).then((r) => r.text()).then(() => undefined, (e: unknown) => e);
    assert.ok(error, 'reading the cut body fails');
    assert.is(providerConnectionError(error, { ...ctx, url }, fix).code, 'ORYX_E_LLM_CONNECTION');
  } finally { await close(server); }
});

test('connection: a connect timeout is TIMEOUT naming timeoutMs and the option; an unknown failure is UNREACHABLE', () => {
  const timeout = providerConnectionError(new TypeError('fetch failed', { cause: chain('UND_ERR_CONNECT_TIMEOUT') }), ctx, fix);
  assert.equal([timeout.code, timeout.retryable], ['ORYX_E_LLM_TIMEOUT', true]);
  assert.match(timeout.message, 'for 1234 ms');
  assert.match(timeout.hint!, 'raise timeoutMs in acme({ timeoutMs })');
  const odd = providerConnectionError(new Error('outer', { cause: new Error('weird inner') }), ctx, fix);
  assert.equal([odd.code, odd.retryable], ['ORYX_E_LLM_UNREACHABLE', true]);
  assert.match(odd.message, '(weird inner)');
});

test('causeChain walks at most six causes; abort errors carry the kernel abort code', () => {
  assert.equal(causeChain(chain('A', 'B', 'C', 'D', 'E', 'F', 'G')).codes, ['A', 'B', 'C', 'D', 'E', 'F']);
  assert.equal(causeChain('plain'), { codes: [], messages: ['plain'] });
  const reason = new Error('user pressed ctrl-c');
  const e = providerAbortError(reason);
  assert.equal([e.code, e.cause], ['ORYX_E_RUN_ABORTED', reason]);
});

test('bad response: final, with the provider\'s hint (else the kernel\'s), the URL in data and the cause kept', () => {
  const cause = new SyntaxError('Unexpected token < in JSON');
  const e = providerBadResponseError(`could not read the answer from ${ctx.url}: ${cause.message}`, ctx, fix, cause);
  assert.equal([e.code, e.retryable, e.cause], ['ORYX_E_LLM_BAD_RESPONSE', false, cause]);
  assert.is(e.message, `${providerLabel(ctx)}: could not read the answer from ${ctx.url}: Unexpected token < in JSON`);
  assert.is(e.hint, KERNEL_ERROR_CODES.ORYX_E_LLM_BAD_RESPONSE);
  assert.equal(e.data, { status: undefined, provider: 'acme', model: 'm1', url: ctx.url });
  const own = providerBadResponseError('no choices', ctx, { ...fix, hints: { ORYX_E_LLM_BAD_RESPONSE: 'point url at acme' } });
  assert.equal([own.hint, own.cause, 'cause' in own], ['point url at acme', undefined, false]);
});

test('provider call options: schema bounds, defaults, retryPolicy, and undefined counting as not set', () => {
  const schema = s.object({ name: s.string().optional(), ...PROVIDER_CALL_SHAPE });
  assert.is(s.check(schema, { timeoutMs: 1, maxRetries: 10, retryBaseDelayMs: 0, retryMaxDelayMs: 0 }), undefined);
  for (const bad of [{ timeoutMs: 0 }, { timeoutMs: 1.5 }, { maxRetries: 11 }, { maxRetries: -1 }, { retryBaseDelayMs: -1 }, { retryMaxDelayMs: 'soon' }, { timeout: 1 }]) {
    assert.ok(s.check(schema, bad), JSON.stringify(bad));
  }
  assert.equal(PROVIDER_CALL_DEFAULTS, { timeoutMs: 60_000, callTimeoutMs: 180_000, maxRetries: 2, retryBaseDelayMs: 500, retryMaxDelayMs: 30_000 });
  assert.equal(retryPolicy({}), { maxRetries: 2, baseDelayMs: 500, maxDelayMs: 30_000 });
  assert.equal(retryPolicy({ maxRetries: 0, retryBaseDelayMs: 10, retryMaxDelayMs: 20 }), { maxRetries: 0, baseDelayMs: 10, maxDelayMs: 20 });
  assert.equal(definedOptions({ a: 1, b: undefined, c: null }), { a: 1, c: null });
  assert.equal(definedOptions(undefined), {});
  assert.equal(definedOptions(null), {});
  assert.equal(definedOptions(['x']), ['x'], 'a non-object is left for the schema to reject');
  assert.is(definedOptions('x'), 'x');
});

test.run();
