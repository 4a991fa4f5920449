// OAuth 2.1 for remote servers, against a loopback resource server and authorization server
// (test/fixtures/oauth-servers.ts, built from the MCP authorization spec and the RFCs it names).
// The conformance suite (conformance.test.ts) covers discovery variants, scopes, step-up,
// client authentication, pre-registration, client credentials and cross-app access; these
// tests cover what OryxOS adds: the token store, the loopback sign-in, refresh without
// asking, the message without a person, logout, and the sandbox around the OAuth requests.
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { allowAll, testKernel, type TestKernel } from '@oryxos/kernel/testing';
import type { Plugin } from '@oryxos/kernel';
import type { Sandbox } from '@oryxos/contracts';
import mcp, { type McpOptions } from '../src/index.ts';
import { defaultTokenDir } from '../src/auth/token-store.ts';
import { openBrowser } from '../src/auth/browser.ts';
import { approveInBrowser, startOAuthFixture, type OAuthFixture } from './fixtures/oauth-servers.ts';

let fx: OAuthFixture;
let tokenDir = '';
const kernels: TestKernel[] = [];
test.before.each(async () => {
  fx = await startOAuthFixture();
  tokenDir = await mkdtemp(path.join(tmpdir(), 'oryx-mcp-tokens-'));
});
test.after.each(async () => {
  for (const k of kernels.splice(0)) await k.close();
  await fx.close();
  await rm(tokenDir, { recursive: true, force: true });
});

async function kernel(options: McpOptions = {}, plugins: Plugin[] = [allowAll()]): Promise<TestKernel> {
  const k = await testKernel({ plugins: [...plugins, mcp({ servers: { remote: { url: fx.url } }, tokenDir, ...options })] });
  kernels.push(k);
  return k;
}

test('without a stored sign-in and nobody to ask: ORYX_E_MCP_AUTH_REQUIRED saying to run oryx mcp login; nothing registered', async () => {
  const k = await kernel();
  const m = k.kernel.service('mcp');
  const error = await m.connect('remote').catch((e) => e);
  assert.is(error.code, 'ORYX_E_MCP_AUTH_REQUIRED');
  assert.match(error.message, /MCP server "remote" needs authorization/);
  assert.match(error.hint, /oryx mcp login remote/);
  const status = m.status()[0]!;
  assert.is(status.ok, false);
  assert.is(status.auth, 'login-needed');
  assert.match(status.hint!, /oryx mcp login remote/);
  assert.equal(fx.seen.registrations, [], 'no client is registered without a person to sign in');
  // A sign-in is needed, not a backoff: the next try is allowed at once.
  assert.is(status.retryAt, undefined);
});

test('login: registration, PKCE S256, the resource indicator and the scope of the challenge; tokens in a 0600 file of a 0700 folder; a new process uses them', async () => {
  const k = await kernel();
  const m = k.kernel.service('mcp');
  const shown: string[] = [];
  m.authorizer = ({ url }) => { shown.push(url.href); void approveInBrowser(url); };
  const status = await m.login('remote');
  assert.is(status.state, 'ready');
  assert.is(status.tools, 1);
  assert.is(status.auth, 'signed-in');
  assert.is(shown.length, 1, 'the authorization URL was shown once');
  const [registration] = fx.seen.registrations as { redirect_uris: string[]; grant_types: string[]; token_endpoint_auth_method: string }[];
  assert.match(registration!.redirect_uris[0]!, /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
  assert.ok(registration!.grant_types.includes('refresh_token'));
  assert.is(registration!.token_endpoint_auth_method, 'none');
  const authorization = fx.seen.authorizations[0]!;
  assert.is(authorization.get('code_challenge_method'), 'S256');
  assert.is(authorization.get('resource'), fx.url);
  assert.is(authorization.get('scope'), 'files:read offline_access', 'the challenge\'s scope, plus offline_access the authorization server lists');
  assert.ok(authorization.get('state'));
  assert.is((await m.call('remote', 'whoami')).content, 'authorized');

  const files = await readdir(tokenDir);
  assert.is(files.length, 1);
  assert.is((await stat(path.join(tokenDir, files[0]!))).mode & 0o777, 0o600);
  assert.is((await stat(tokenDir)).mode & 0o777, 0o700);
  const stored = JSON.parse(await readFile(path.join(tokenDir, files[0]!), 'utf8'));
  assert.is(stored.url, fx.url);
  assert.is(stored.server, 'remote');
  assert.ok(stored.tokens.refresh_token);

  // Another process (a new kernel), nobody to ask: the stored tokens are used.
  const again = await kernel();
  assert.is((await again.kernel.service('mcp').call('remote', 'whoami')).content, 'authorized');
  assert.is(fx.seen.authorizations.length, 1, 'no second sign-in');
});

test('an access token about to expire is refreshed without asking; a refresh the server refuses asks for a login again', async () => {
  const k = await kernel();
  const m = k.kernel.service('mcp');
  m.authorizer = ({ url }) => { void approveInBrowser(url); };
  await m.login('remote');
  await k.close();
  kernels.splice(kernels.indexOf(k), 1);
  fx.expiresIn = 1; // the next tokens live a second
  const stored = path.join(tokenDir, (await readdir(tokenDir))[0]!);
  const record = JSON.parse(await readFile(stored, 'utf8'));
  record.obtainedAt = Date.now() - 3_600_000; // the stored access token has expired
  await writeFile(stored, JSON.stringify(record));

  const later = await kernel();
  const service = later.kernel.service('mcp');
  assert.is((await service.call('remote', 'whoami')).content, 'authorized');
  assert.ok(fx.seen.tokens.some((f) => f.get('grant_type') === 'refresh_token' && f.get('resource') === fx.url), 'refreshed, with the resource indicator');
  assert.is(fx.seen.authorizations.length, 1, 'no browser');

  fx.refreshWorks = false;
  await new Promise((r) => setTimeout(r, 1100)); // the refreshed token expires
  const refused = await service.call('remote', 'whoami');
  assert.ok(refused.isError);
  assert.match(refused.content, /needs authorization/);
  assert.match(refused.content, /oryx mcp login remote/);
});

test('logout revokes the refresh and access tokens at the revocation endpoint, then deletes the file', async () => {
  const k = await kernel();
  const m = k.kernel.service('mcp');
  m.authorizer = ({ url }) => { void approveInBrowser(url); };
  await m.login('remote');
  const result = await m.logout('remote');
  assert.equal(result, { removed: true, revoked: 2 });
  assert.equal(fx.seen.revocations.map((f) => f.get('token_type_hint')), ['refresh_token', 'access_token']);
  assert.ok(fx.seen.revocations.every((f) => f.get('client_id') === 'client-1'));
  assert.equal(await readdir(tokenDir), []);
  m.authorizer = undefined;
  const error = await m.connect('remote').catch((e) => e);
  assert.is(error.code, 'ORYX_E_MCP_AUTH_REQUIRED');
});

test('every OAuth request passes the sandbox: an authorization server on a host the policy denies is refused, naming it', async () => {
  const rsPort = new URL(fx.url).port;
  const sandbox: Sandbox = {
    async enforce(action) {
      if (action.kind === 'http' && new URL(action.url).port === rsPort) return { allow: true };
      return { allow: false, reason: `${action.kind === 'http' ? action.url : action.kind} is not on http.allow` };
    },
    async launch() { return { allow: false, reason: 'no programs here' }; },
  };
  const plugin: Plugin = { name: 'sandbox', version: '1.0.0', kernel: '^1', provides: ['sandbox'], setup(ctx) { ctx.provide('sandbox', sandbox); } };
  const k = await kernel({}, [plugin]);
  const m = k.kernel.service('mcp');
  m.authorizer = ({ url }) => { void approveInBrowser(url); };
  const error = await m.login('remote').catch((e) => e);
  assert.is(error.code, 'ORYX_E_SANDBOX_DENIED');
  assert.match(error.message, new RegExp(`${fx.issuer.replace(/[.:/]/g, '\\$&')}/\\.well-known/oauth-authorization-server`));
  assert.equal(fx.seen.registrations, []);
});

test('the token folder defaults to the user\'s state folder, never the project', () => {
  assert.is(defaultTokenDir({ XDG_STATE_HOME: '/home/me/.state', HOME: '/home/me' }), '/home/me/.state/oryxos/mcp-auth');
  assert.is(defaultTokenDir({ HOME: '/home/me' }), '/home/me/.local/state/oryxos/mcp-auth');
  assert.is(defaultTokenDir({ XDG_STATE_HOME: 'relative', HOME: '/home/me' }), '/home/me/.local/state/oryxos/mcp-auth');
});

test('a browser is opened only where there is one: $BROWSER, else a display; otherwise only the URL is printed', async () => {
  assert.is(openBrowser('http://127.0.0.1/x', { PATH: process.env.PATH }, 'linux'), undefined);
  const marker = path.join(tokenDir, 'opened');
  const recorder = path.join(tokenDir, 'record.mjs');
  await writeFile(recorder, "import { writeFileSync } from 'node:fs'; writeFileSync(process.argv[2], process.argv[3]);\n");
  // $BROWSER with %s, as xdg-open and git read it: a program that records the URL it got.
  const opened = openBrowser('http://127.0.0.1/x?a=1', { PATH: process.env.PATH, BROWSER: `${process.execPath} ${recorder} ${marker} %s` }, 'linux');
  assert.is(opened, process.execPath);
  for (let i = 0; i < 100; i++) {
    if (await readFile(marker, 'utf8').catch(() => '')) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.is(await readFile(marker, 'utf8'), 'http://127.0.0.1/x?a=1');
});

test.run();
