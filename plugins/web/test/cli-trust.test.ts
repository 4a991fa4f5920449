// Issue 22 end to end, through the built `oryx web` with the default config: the generated
// token, and the requests a web page can make (foreign Host, foreign Origin, text/plain) doing
// nothing at all: no session, no model call, no file written by the agent's tool.
import { existsSync } from 'node:fs';
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOryx, tempProject, writeAgents } from '@oryxos/kernel/testing';
import { killAll, listening, type CliServer } from './cli-helpers.ts';
import { post, rawRequest } from './helpers.ts';

// The model asks for drop_file, which writes ./pwned.txt; every model call appends to ./model-calls.
const config = (webOptions = '') => `
import { appendFileSync, writeFileSync } from 'node:fs';
import { defineConfig } from '@oryxos/kernel';
import { scripted } from '@oryxos/kernel/testing';
import web from '@oryxos/plugin-web';
const dropper = {
  name: 'dropper', version: '1.0.0', kernel: '^1',
  setup(k) {
    k.registerTool({
      name: 'drop_file', description: 'writes pwned.txt', source: 'plugin', inputSchema: { type: 'object' },
      async execute() { writeFileSync('pwned.txt', 'written by the agent'); return 'written'; },
    });
  },
};
const recorded = (step) => () => { appendFileSync('model-calls', 'call\\n'); return step; };
export default defineConfig({
  plugins: [scripted([recorded({ toolCalls: [{ name: 'drop_file' }] }), recorded({ text: 'done' })]), dropper, web(${webOptions})],
});
`;

const chat = { model: 'assistant', messages: [{ role: 'user', content: 'write the file' }] };

let dir: string;
let servers: CliServer[] = [];
test.before.each(async () => {
  dir = await tempProject('web-trust-');
  await writeAgents(path.join(dir, '.oryxos'), { assistant: { tools: ['drop_file'] } });
  servers = [];
});
test.after.each(async () => {
  await killAll(servers);
  await rm(dir, { recursive: true, force: true });
});

async function serve(args: string[] = [], env: Record<string, string> = {}): Promise<CliServer> {
  const s = await listening(dir, args, env);
  servers.push(s);
  return s;
}

async function stop(s: CliServer) {
  s.child.kill('SIGTERM');
  assert.is(await s.exit, 0, s.stderr());
}

const bearer = (token: string | undefined) => ({ authorization: `Bearer ${token}` });

test('default config: a token is generated, kept 0600 and named but never printed (unless --show-token), reused after a restart, replaced by --new-token', async () => {
  await writeFile(path.join(dir, 'oryx.config.ts'), config());
  const tokenFile = path.join(dir, '.oryxos', 'web-token');
  const first = await serve();
  assert.match(first.token ?? '', /^[A-Za-z0-9_-]{43}$/, first.stdout());
  // A service log keeps what the server prints: the credential of the whole API is not in it.
  assert.not.ok(first.stdout().includes(first.token!), `the token was printed:\n${first.stdout()}`);
  assert.not.ok(first.stderr().includes(first.token!));
  assert.match(first.stdout(), `console: ${first.url}/ (it asks for the token: oryx web --show-token prints a console URL that carries it, or read ${tokenFile})`);
  assert.match(first.stdout(), `auth: bearer token kept in ${tokenFile}`);
  assert.is((await readFile(tokenFile, 'utf8')).trim(), first.token);
  assert.is((await stat(tokenFile)).mode & 0o777, 0o600);
  const none = await fetch(`${first.url}/api/info`);
  assert.is(none.status, 401);
  assert.is(((await none.json()) as any).error.code, 'ORYX_E_WEB_UNAUTHORIZED');
  assert.is((await fetch(`${first.url}/api/info`, { headers: bearer(first.token) })).status, 200);
  await stop(first);

  const second = await serve(['--show-token']);
  assert.is(second.token, first.token, 'reused after a restart');
  assert.match(second.stdout(), `console: ${second.url}/#token=${first.token}`);
  assert.is(second.stdout().split(first.token!).length, 2, 'with --show-token, printed once, in the fragment');
  assert.is((await fetch(`${second.url}/api/info`, { headers: bearer(first.token) })).status, 200);
  await stop(second);

  const rotated = await serve(['--new-token']);
  assert.is.not(rotated.token, first.token);
  assert.match(rotated.stdout(), `new token written to ${tokenFile}`);
  assert.is((await readFile(tokenFile, 'utf8')).trim(), rotated.token);
  assert.is((await stat(tokenFile)).mode & 0o777, 0o600);
  assert.is((await fetch(`${rotated.url}/api/info`, { headers: bearer(first.token) })).status, 401, 'the old token no longer works');
  assert.is((await fetch(`${rotated.url}/api/info`, { headers: bearer(rotated.token) })).status, 200);
  await stop(rotated);

  const configured = await runOryx(['web', '--port', '0', '--new-token'], { cwd: dir, env: { ORYX_WEB_TOKEN: 'configured-token-0123456789' } });
  assert.is(configured.code, 1);
  assert.match(configured.stderr, 'ORYX_E_WEB_OPTIONS');
  assert.match(configured.stderr, 'ORYX_WEB_TOKEN');
});

test('default config: what a web page can send does nothing (foreign Host 421, foreign Origin 403, text/plain 415); the real client still runs the agent', async () => {
  await writeFile(path.join(dir, 'oryx.config.ts'), config());
  const s = await serve();
  const auth = bearer(s.token);
  const port = new URL(s.url).port;
  const json = JSON.stringify(chat);

  const rebound = await rawRequest(`${s.url}/v1/chat/completions`, { method: 'POST', headers: { ...auth, host: `evil.example:${port}`, 'content-type': 'application/json' }, body: json });
  assert.is(rebound.status, 421);
  assert.is(JSON.parse(rebound.body).error.code, 'ORYX_E_WEB_BAD_HOST');
  assert.is((await rawRequest(`${s.url}/health`, { headers: { host: 'evil.example' } })).status, 421);
  for (const headers of [{}, auth]) {
    const forged = await fetch(`${s.url}/v1/chat/completions`, { method: 'POST', headers: { ...headers, origin: 'https://evil.example', 'content-type': 'text/plain' }, body: json });
    assert.is(forged.status, 403);
    assert.is(((await forged.json()) as any).error.code, 'ORYX_E_WEB_BAD_ORIGIN');
  }
  assert.is((await post(`${s.url}/api/sessions`, { agent: 'assistant' }, { ...auth, origin: 'https://evil.example' })).status, 403);
  const plain = await fetch(`${s.url}/v1/chat/completions`, { method: 'POST', headers: { ...auth, 'content-type': 'text/plain' }, body: json });
  assert.is(plain.status, 415);
  assert.is(((await plain.json()) as any).error.code, 'ORYX_E_WEB_CONTENT_TYPE');

  const sessions = async () => ((await (await fetch(`${s.url}/api/sessions`, { headers: auth })).json()) as any).items.length;
  assert.is(await sessions(), 0, 'no session created');
  assert.not.ok(existsSync(path.join(dir, 'model-calls')), 'no model call');
  assert.not.ok(existsSync(path.join(dir, 'pwned.txt')), 'no file written');
  assert.match(s.stdout(), / POST \/v1\/chat\/completions 403 /, 'the forged request did reach the server');

  // The same request from a real client: the agent runs and its tool writes the file, so the
  // checks above would have seen it.
  const real = await post(`${s.url}/v1/chat/completions`, chat, auth);
  assert.is(real.status, 200);
  assert.is(((await real.json()) as any).choices[0].message.content, 'done');
  assert.is(await readFile(path.join(dir, 'pwned.txt'), 'utf8'), 'written by the agent');
  assert.is((await readFile(path.join(dir, 'model-calls'), 'utf8')).split('\n').filter(Boolean).length, 2);
  assert.is(await sessions(), 1);

  for (const [route, type] of [['/api/info', 'application/json'], ['/docs', 'text/html'], ['/nowhere', 'application/json']] as const) {
    const res = await fetch(`${s.url}${route}`, { headers: auth });
    assert.match(res.headers.get('content-type') ?? '', type, route);
    assert.is(res.headers.get('x-content-type-options'), 'nosniff', route);
    assert.is(res.headers.get('referrer-policy'), 'no-referrer', route);
    assert.is(res.headers.get('x-frame-options'), 'DENY', route);
    assert.match(res.headers.get('content-security-policy') ?? '', "default-src 'none'", route);
  }
  await stop(s);
});

test("a configured cors origin may call through oryx web, others may not; auth: 'none' warns at every start and still refuses foreign origins", async () => {
  await writeFile(path.join(dir, 'oryx.config.ts'), config("{ cors: 'http://app.test' }"));
  const s = await serve();
  const allowed = await post(`${s.url}/v1/chat/completions`, chat, { ...bearer(s.token), origin: 'http://app.test' });
  assert.is(allowed.status, 200);
  assert.is(allowed.headers.get('access-control-allow-origin'), 'http://app.test');
  assert.is((await post(`${s.url}/v1/chat/completions`, chat, { ...bearer(s.token), origin: 'http://other.test' })).status, 403);
  await stop(s);

  await rm(path.join(dir, '.oryxos', 'web-token'));
  await writeFile(path.join(dir, 'oryx.config.ts'), config("{ auth: 'none' }"));
  for (let i = 0; i < 2; i++) {
    const open = await serve();
    assert.match(open.stderr(), "warning: web: web({ auth: 'none' }): this server has no token");
    assert.match(open.stdout(), /^auth: none$/m);
    assert.is(open.token, undefined);
    assert.is((await fetch(`${open.url}/api/info`)).status, 200);
    assert.is((await post(`${open.url}/api/sessions`, { agent: 'assistant' }, { origin: 'https://evil.example' })).status, 403);
    await stop(open);
  }
  assert.not.ok(existsSync(path.join(dir, '.oryxos', 'web-token')), 'no token file with auth: none');
});

test.run();
