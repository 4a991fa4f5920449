// `oryx doctor` through the checkout's CLI (npm test builds first), on real parts: the openai
// plugin against a loopback OpenAI-compatible server, the sqlite database, real MCP stdio
// servers behind the real sandbox, a real port held by another listener. A working setup passes
// every check and exits 0; each broken part is one ✗ line with its fix, and the exit status is 1.
import { createServer, type Server } from 'node:net';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOryx, tempProject } from '@oryxos/kernel/testing';
import { completion, openaiServer, type OpenAIServer } from '../plugins/openai/test/helpers/openai-server.ts';
import { FIXTURE, NODE } from '../plugins/mcp/test/helpers.ts';

interface Check { check: string; status: 'ok' | 'fail' | 'warn' | 'skip'; detail: string; code?: string; fix?: string }

let dir: string;
let model: OpenAIServer;
const q = JSON.stringify;
const doctor = (args: string[] = [], env: Record<string, string | undefined> = {}) =>
  runOryx(['doctor', ...args], { cwd: dir, env: { OPENAI_API_KEY: 'sk-doctor', OPENAI_BASE_URL: model.url, ...env } });
const checks = async (env: Record<string, string | undefined> = {}): Promise<{ code: number; items: Check[] }> => {
  const r = await doctor(['--json'], env);
  return { code: r.code, items: JSON.parse(r.stdout).items };
};
const find = (items: Check[], check: string) => items.find((c) => c.check === check);

/** A project: openai, sqlite, the sandbox (node allowed, unconfined), mcp with `servers`, web on `port`. */
async function project(port: number, servers: string, agentModel = 'gpt-test'): Promise<void> {
  await writeFile(path.join(dir, 'oryx.config.ts'), `import { defineConfig } from '@oryxos/kernel';
import openai from '@oryxos/plugin-openai';
import sqlite from '@oryxos/plugin-sqlite';
import sandbox from '@oryxos/plugin-sandbox';
import mcp from '@oryxos/plugin-mcp';
import web from '@oryxos/plugin-web';
export default defineConfig({ plugins: [
  openai(), sqlite(), web({ port: ${port} }), mcp(),
  sandbox({ files: { read: ['.'], write: ['notes'] }, exec: { allow: [${q(NODE)}] }, http: { allow: ['example.org'] }, confine: false }),
] });
`);
  await mkdir(path.join(dir, '.oryxos', 'agents', 'assistant'), { recursive: true });
  await writeFile(path.join(dir, '.oryxos', 'agents', 'assistant', 'AGENT.md'), `---\ndescription: test\nmodel: ${agentModel}\ntools: ["fx__*"]\n---\nYou test.\n`);
  await writeFile(path.join(dir, '.oryxos', 'mcp_servers.yaml'), `servers:\n${servers}`);
}

const fx = `  fx:\n    command: ${q(NODE)}\n    args: [${q(FIXTURE)}]\n    connectTimeoutMs: 60000\n`;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test.before.each(async () => {
  dir = await tempProject('doctor-');
  // The model: a known model answers, any other is a 404 as OpenAI sends it.
  model = await openaiServer(Array.from({ length: 10 }, () => (body: { model: string }) => (body.model === 'gpt-test'
    ? { json: completion({ content: 'ok', model: 'gpt-test' }) }
    : { status: 404, json: { error: { message: `The model \`${body.model}\` does not exist`, type: 'invalid_request_error', code: 'model_not_found' } } })));
});
test.after.each(async () => {
  await model.close();
  await rm(dir, { recursive: true, force: true });
});

test('a working setup: every check passes, the model got one tiny request, nothing is written; exit 0', async () => {
  await project(await freePort(), fx);
  const r = await doctor();
  assert.is(r.code, 0, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /^✓ node: \d+\.\d+\.\d+ \(needs >=/m);
  assert.match(r.stdout, `✓ config: ${path.join(dir, 'oryx.config.ts')}: 5 plugin(s)`);
  assert.match(r.stdout, /^✓ plugins: setup and init passed: openai \S+, sqlite \S+, web \S+, mcp \S+, sandbox \S+$/m);
  assert.match(r.stdout, /^✓ provider openai: model gpt-test answered in \d+ ms, agents: assistant$/m);
  assert.match(r.stdout, /^✓ tools mcp\/fx: [1-9]\d* tool\(s\)$/m);
  assert.match(r.stdout, /^✓ web port: 127\.0\.0\.1:\d+ is free$/m);
  assert.match(r.stdout, /^✓ sandbox: files read: \.; files write: notes; exec: .*node.*; http: example\.org; smtp: nothing; programs NOT confined \(confine: false\)$/m);
  assert.match(r.stdout, /^✓ database: sqlite file:.*oryx\.db: opens; a new database: \d+ migration\(s\) applied at the first start$/m);
  assert.match(r.stdout, 'Everything checked is working.');
  assert.not.match(r.stdout, /^✗/m);
  assert.is(model.requests.length, 1);
  assert.equal(model.requests[0]!.body.tools, undefined, 'no tools offered');
  assert.is(model.requests[0]!.headers.authorization, 'Bearer sk-doctor');
  assert.not.ok(existsSync(path.join(dir, '.oryxos', 'oryx.db')), 'the database is read, never created or migrated');
  assert.not.ok((await readdir(path.join(dir, '.oryxos'))).includes('web-token'));

  // Once the database exists and is migrated (by a run), the doctor says it is current.
  const migrated = await runOryx(['db', 'migrate'], { cwd: dir });
  assert.is(migrated.code, 0, migrated.stderr);
  const again = await checks();
  assert.is(again.code, 0);
  assert.equal(again.items.filter((c) => c.status === 'warn').map((c) => c.detail.split(':')[0]), ['sandbox', 'sandbox', 'sandbox'], 'the sandbox start-up warnings are shown');
  assert.match(find(again.items, 'database')!.detail, /opens; migrations current \(sqlite \d+, runs \d+\)$/);
});

test('each broken part is a ✗ line naming the fix: an unknown model, a missing key, a server the sandbox denies, a taken port; exit 1', async () => {
  const holder: Server = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  try {
    const port = (holder.address() as { port: number }).port;
    await project(port, `${fx}  denied:\n    command: /bin/cat\n  dies:\n    command: ${q(NODE)}\n    args: [${q(FIXTURE)}, --exit-at-start]\n`, 'gpt-nope');
    const r = await doctor();
    assert.is(r.code, 1, r.stdout);
    assert.match(r.stdout, /^✗ provider openai: ORYX_E_LLM_NOT_FOUND: .*gpt-nope/m);
    assert.match(r.stdout, /^✗ tools mcp\/denied: .*Denied by the sandbox: command .*cat.* is not on the exec allow-list/m);
    assert.match(r.stdout, /^✗ tools mcp\/dies: /m);
    assert.match(r.stdout, /^✓ tools mcp\/fx: /m);
    assert.match(r.stdout, new RegExp(`^✗ web port: EADDRINUSE: 127\\.0\\.0\\.1:${port} cannot be used: another program listens on it$`, 'm'));
    assert.match(r.stdout, /^ {4}fix: Stop the program that holds it, or pick another port: web\(\{ port \}\)/m);
    assert.match(r.stdout, /^4 check\(s\) failed\.$/m);

    const { code, items } = await checks({ OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined });
    assert.is(code, 1);
    const provider = find(items, 'provider openai')!;
    assert.equal([provider.status, provider.code], ['fail', 'ORYX_E_OPENAI_NO_API_KEY']);
    assert.match(provider.detail, 'OPENAI_API_KEY is not set');
    assert.match(provider.fix!, 'Set OPENAI_API_KEY');
    assert.is(find(items, 'web port')!.code, 'EADDRINUSE');
  } finally {
    await new Promise((resolve) => holder.close(resolve));
  }
});

test('no config: the fix is oryx init and the rest is skipped; a plugin that fails in setup is named', async () => {
  await mkdir(path.join(dir, '.oryxos')); // the project folder: the config is not looked for above it
  const none = await checks();
  assert.is(none.code, 1);
  assert.equal(find(none.items, 'config'), {
    check: 'config', status: 'fail', code: 'ORYX_E_CONFIG_NOT_FOUND',
    detail: 'no oryx.config.ts in this folder or above it (up to the project folder)', fix: 'Run `oryx init` here, or pass --config PATH.',
  });
  assert.equal(none.items.filter((c) => c.status === 'skip').map((c) => c.check), ['plugins', 'database', 'provider', 'tools', 'web port', 'sandbox']);

  await writeFile(path.join(dir, 'oryx.config.ts'), `import { defineConfig } from '@oryxos/kernel';
export default defineConfig({ plugins: [{ name: 'broken', version: '1.0.0', kernel: '^1', setup() { throw new Error('cannot reach the license server'); } }] });
`);
  const broken = await doctor();
  assert.is(broken.code, 1);
  assert.match(broken.stdout, /^✗ plugins: ORYX_E_PLUGIN_SETUP: Plugin "broken" failed in setup: cannot reach the license server$/m);
  assert.match(broken.stdout, /^ {4}fix: /m);
  assert.match(broken.stdout, /^- database: the plugins did not start$/m);
});

test.run();
