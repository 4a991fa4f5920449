// End to end through the built CLI (build first: `npx tsc -b plugins/web && node scripts/manifest.mjs`;
// `npm test` does it): `oryx web` in a child process, a real client, SIGTERM.
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOryx, tempProject, writeAgents } from '@oryxos/kernel/testing';
import { killAll, listening, waitFor, type CliServer } from './cli-helpers.ts';
import { post, readSse } from './helpers.ts';

const config = (webOptions = '', withWeb = true) => `
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { defineConfig } from '@oryxos/kernel';
import { scripted } from '@oryxos/kernel/testing';
${withWeb ? "import web from '@oryxos/plugin-web';" : ''}
// Waits until the test creates ./release (or the run is aborted), so the test decides when it ends.
const gate = {
  name: 'gate', version: '1.0.0', kernel: '^1',
  setup(k) {
    k.registerTool({
      name: 'wait_for_release', description: 'waits', source: 'plugin', inputSchema: { type: 'object' },
      async execute(args, ctx) {
        while (!existsSync('release') && !ctx.signal.aborted) await sleep(20);
        return ctx.signal.aborted ? 'aborted' : 'released';
      },
    });
  },
};
export default defineConfig({
  plugins: [
    scripted([{ toolCalls: [{ name: 'wait_for_release' }] }, { text: 'finished after release' }]),
    gate,
    ${withWeb ? `web(${webOptions}),` : ''}
  ],
});
`;

let dir: string;
let servers: CliServer[] = [];
test.before.each(async () => {
  dir = await tempProject('web-cli-');
  await writeAgents(path.join(dir, '.oryxos'), { assistant: { tools: ['wait_for_release'] } });
  servers = [];
});
test.after.each(async () => {
  await killAll(servers);
  await rm(dir, { recursive: true, force: true });
});

const TOKEN = 'cli-token-0123456789abcdef';
const auth = { authorization: `Bearer ${TOKEN}` };

test('oryx web serves (ORYX_WEB_TOKEN guarding all but /health), and on SIGTERM lets the run in flight finish, then exits 0', async () => {
  await writeFile(path.join(dir, 'oryx.config.ts'), config());
  const s = await listening(dir, [], { ORYX_WEB_TOKEN: TOKEN });
  servers.push(s);
  assert.equal(await (await fetch(`${s.url}/health`)).json(), { status: 'ok' });
  assert.is((await fetch(`${s.url}/api/info`)).status, 401);
  assert.is((await fetch(`${s.url}/api/info`, { headers: auth })).status, 200);
  const session = ((await (await post(`${s.url}/api/sessions`, { agent: 'assistant' }, auth)).json()) as any).id;
  const res = await post(`${s.url}/api/sessions/${session}/messages`, { message: 'go' }, { ...auth, accept: 'text/event-stream' });
  const events: string[] = [];
  let answer = '';
  const reading = (async () => {
    for await (const e of readSse(res.body!)) {
      events.push(e.event!);
      if (e.event === 'done') answer = JSON.parse(e.data).answer;
    }
  })();
  while (!events.includes('tool_call')) await new Promise((r) => setTimeout(r, 10));
  s.child.kill('SIGTERM');
  await waitFor(s, /SIGTERM: shutting down \(1 run\(s\) in flight/);
  await writeFile(path.join(dir, 'release'), '');
  await reading;
  assert.is(answer, 'finished after release');
  assert.equal(events.filter((e) => e !== 'token'), ['usage', 'tool_call', 'tool_result', 'usage', 'done']);
  assert.is(await s.exit, 0, s.stderr());
  assert.match(s.stdout(), 'stopped: 1 run(s) finished, 0 aborted');
  assert.match(s.stdout(), / GET \/health 200 /, 'request log lines');
});

test('oryx web validates and documents its requests without arktype: a bad query, a bad body and the document, and no arktype module loaded', async () => {
  await writeFile(path.join(dir, 'oryx.config.ts'), config(`{ token: '${TOKEN}' }`));
  const trace = path.join(dir, 'loaded.txt');
  await writeFile(trace, '');
  const preload = path.resolve(import.meta.dirname, '../../../test/fixtures/trace-imports.mjs');
  const s = await listening(dir, [], { ORYX_TRACE_FILE: trace }, ['--import', preload]);
  servers.push(s);
  const badLimit = await fetch(`${s.url}/api/sessions?limit=abc`, { headers: auth });
  assert.is(badLimit.status, 400);
  assert.is(((await badLimit.json()) as any).error.message, 'query parameter limit must be a whole number from 1 to 100 (was "abc")');
  const badBody = await post(`${s.url}/api/sessions`, { agent: 'assistant', colour: 'red' }, auth);
  assert.is(badBody.status, 400);
  assert.is(((await badBody.json()) as any).error.message, 'colour must be removed (the body takes: agent, title)');
  const page = await fetch(`${s.url}/api/sessions?limit=2`, { headers: auth });
  assert.is(page.status, 200, 'a good limit reaches the route as a number');
  const doc = (await (await fetch(`${s.url}/openapi.json`, { headers: auth })).json()) as any;
  const limitParam = doc.paths['/api/sessions'].get.parameters.find((p: any) => p.name === 'limit');
  assert.equal(limitParam.schema, { type: 'integer', minimum: 1, maximum: 100 });
  s.child.kill('SIGTERM');
  assert.is(await s.exit, 0);
  const loaded = (await readFile(trace, 'utf8')).split('\n').filter(Boolean);
  assert.ok(loaded.some((u) => u.includes('/plugins/web/dist/')), 'the trace saw the web plugin');
  assert.equal(loaded.filter((u) => /node_modules\/(arktype|@ark)\//.test(u)), [], 'no arktype module loaded');
});

test('on SIGINT with --grace 0 the run in flight is aborted cleanly and the process exits 0', async () => {
  await writeFile(path.join(dir, 'oryx.config.ts'), config());
  const s = await listening(dir, ['--grace', '0']);
  servers.push(s);
  const auth = { authorization: `Bearer ${s.token}` };
  const session = ((await (await post(`${s.url}/api/sessions`, { agent: 'assistant' }, auth)).json()) as any).id;
  const pending = post(`${s.url}/api/sessions/${session}/messages`, { message: 'go' }, auth);
  // The run is in flight once the tool is waiting; /api/sessions shows the committed tool call.
  for (let i = 0; i < 500; i++) {
    const body = (await (await fetch(`${s.url}/api/sessions/${session}`, { headers: auth })).json()) as any;
    if (body.messageCount >= 2) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  s.child.kill('SIGINT');
  const res = await pending;
  assert.is(res.status, 503);
  assert.is(((await res.json()) as any).error.code, 'ORYX_E_WEB_SHUTTING_DOWN');
  assert.is(await s.exit, 0, s.stderr());
  assert.match(s.stdout(), 'stopped: 0 run(s) finished, 1 aborted');
});

test("oryx web --host 0.0.0.0 with auth: 'none' refuses to start, naming the fix", async () => {
  await writeFile(path.join(dir, 'oryx.config.ts'), config("{ auth: 'none' }"));
  const r = await runOryx(['web', '--host', '0.0.0.0', '--port', '0'], { cwd: dir, env: { ORYX_WEB_TOKEN: undefined } });
  assert.is(r.code, 1);
  assert.match(r.stderr, 'ORYX_E_WEB_NO_TOKEN');
  assert.match(r.stderr, "auth: 'none'");
  assert.not.match(r.stdout, 'listening');
});

test('oryx web without the web plugin in the config says what to add', async () => {
  await writeFile(path.join(dir, 'oryx.config.ts'), config('', false));
  const r = await runOryx(['web', '--port', '0'], { cwd: dir });
  assert.is(r.code, 1);
  assert.match(r.stderr, 'ORYX_E_WEB_NOT_ENABLED');
  assert.match(r.stderr, 'web()');
});

test.run();
