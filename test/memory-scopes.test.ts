// Memory never leaks between conversations or users, end to end: the built `oryx web` with the
// `oryx init` config (openai provider, sqlite, memory, …) against a loopback server speaking
// the OpenAI wire protocol. Build first (`npm test` does).
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOryx, tempProject } from '@oryxos/kernel/testing';
import { completion } from '../plugins/openai/test/helpers/openai-server.ts';

const TOKEN = 'memory-scopes-e2e-token-0123456789';
const bin = path.resolve('bin/run.js');

interface ModelRequest { messages: { role: string; content: string | null }[] }
let dir = '';
let model: Server;
let modelUrl = '';
const requests: ModelRequest[] = [];
let web: ChildProcess | undefined;
let url = '';
let logs = '';
let sessionA = '';
let sessionB = '';

/**
 * The scripted model: `SAVE:<fact>` makes it call save_memory (Core), a tool result gets a
 * short final answer, anything else is answered `answer to <ask>`.
 */
function reply(body: ModelRequest, n: number) {
  const last = body.messages.at(-1)!;
  if (last.role === 'tool') return completion({ content: `done (${String(last.content).slice(0, 80)})` });
  const ask = String(last.content);
  const save = /^SAVE:(.*)$/s.exec(ask);
  if (save) return completion({ toolCalls: [{ id: `call_${n}`, name: 'save_memory', args: { text: save[1]!.trim(), zone: 'core' } }] });
  const read = /^READ:(.*)$/s.exec(ask);
  if (read) return completion({ toolCalls: [{ id: `call_${n}`, name: 'read_file', args: { path: read[1]!.trim() } }] });
  return completion({ content: `answer to ${ask}` });
}

const env = () => ({ OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: modelUrl, ORYX_WEB_TOKEN: TOKEN });
const oryx = (args: string[]) => runOryx(args, { cwd: dir, env: env() });
const headers = (extra: Record<string, string> = {}) => ({ authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...extra });
const api = async (method: string, route: string, body?: unknown, extra: Record<string, string> = {}) => {
  const res = await fetch(`${url}${route}`, { method, headers: headers(extra), body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${text}`);
  return { json: text ? JSON.parse(text) : undefined, headers: res.headers };
};
const say = async (session: string, message: string, user?: string) =>
  (await api('POST', `/api/sessions/${session}/messages`, { message }, user ? { 'x-oryx-user': user } : {})).json.answer as string;
const chat = async (message: string, body: Record<string, unknown> = {}, extra: Record<string, string> = {}) =>
  (await api('POST', '/v1/chat/completions', { model: 'assistant', messages: [{ role: 'user', content: message }], ...body }, extra)).json;
const newSession = async () => (await api('POST', '/api/sessions', { agent: 'assistant' })).json.id as string;
/** The model requests whose newest user message starts with `prefix`. */
const asked = (prefix: string) => requests.filter((r) => String([...r.messages].reverse().find((m) => m.role === 'user')?.content).startsWith(prefix));
const systemOf = (r: ModelRequest) => String(r.messages[0]!.content);

test.before(async () => {
  model = createServer(async (req, res) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    const body = JSON.parse(text) as ModelRequest;
    requests.push(body);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(reply(body, requests.length)));
  });
  await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));
  modelUrl = `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`;

  dir = await tempProject('memory-scopes-');
  const init = await oryx(['init']);
  assert.is(init.code, 0, init.stderr);
  const agentFile = path.join(dir, '.oryxos', 'agents', 'assistant', 'AGENT.md');
  await writeFile(agentFile, (await readFile(agentFile, 'utf8')).replace('max_history_turns: 20', 'max_history_turns: 1'));

  web = spawn(process.execPath, [bin, 'web', '--port', '0'], { cwd: dir, env: { ...process.env, ...env() }, stdio: ['ignore', 'pipe', 'pipe'] });
  web.stdout!.on('data', (d) => { logs += d; });
  web.stderr!.on('data', (d) => { logs += d; });
  for (let i = 0; i < 1500 && !url; i++) {
    url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(logs)?.[1] ?? '';
    if (!url) await new Promise((r) => setTimeout(r, 20));
  }
  assert.ok(url, `oryx web did not start:\n${logs}`);
});

test.after(async () => {
  if (web && web.exitCode === null) {
    web.kill('SIGTERM');
    await new Promise((r) => web!.on('close', r));
  }
  await new Promise((r) => model?.close(r));
  if (dir) await rm(dir, { recursive: true, force: true });
});

test("two sessions on one agent: B's requests carry none of A's turns; A's later requests carry A's checkpoints", async () => {
  const a = (sessionA = await newSession());
  const b = (sessionB = await newSession());
  assert.is(await say(a, 'A-one: my locker code is 7713'), 'answer to A-one: my locker code is 7713');
  await say(a, 'A-two: and the wifi is oryx-guest');
  await say(a, 'A-three: thanks');
  for (const ask of ['B-one', 'B-two', 'B-three']) await say(b, ask);
  await say(a, 'A-four: remind me');

  for (const r of asked('B-')) {
    const all = JSON.stringify(r.messages);
    assert.not.match(all, 'A-one');
    assert.not.match(all, 'locker code');
    assert.not.match(all, 'oryx-guest');
  }
  assert.match(systemOf(asked('B-three')[0]!), 'the user asked "B-one"', "B's own checkpoints reach B");
  const later = systemOf(asked('A-four')[0]!);
  assert.match(later, 'the user asked "A-one: my locker code is 7713"; the answer was "answer to A-one: my locker code is 7713"');
  assert.match(later, `(session ${a} #1)`);
  const shared = await readFile(path.join(dir, '.oryxos', 'memory', 'MEMORY.md'), 'utf8');
  assert.not.match(shared, 'Earlier conversation', 'no checkpoint in the agent memory');
});

test("two users through /v1 and the REST API: each one's saved facts reach only their own prompts; the agent's reach both", async () => {
  // The operator teaches the agent from the CLI while the server runs (the agent scope).
  const op = await oryx(['memory', 'save', 'AGENT-FACT: the office is closed on Fridays', '--core']);
  assert.is(op.code, 0, op.stderr);

  await chat('SAVE:ANA-FACT: Ana drinks green tea', { user: 'ana' });
  const bobSession = await newSession();
  assert.match(await say(bobSession, 'SAVE:BOB-FACT: Bob drinks black coffee', 'bob'), "done (Saved to Core of this user's memory");

  await chat('ANA-ASK: what do I drink?', { user: 'ana' });
  await say(await newSession(), 'BOB-ASK: what do I drink?', 'bob');
  await chat('ANA-ASK-2: and now?', {}, { 'x-oryx-user': 'ana', 'x-session-id': 'ana-second-conversation' });

  for (const r of asked('ANA-ASK')) {
    assert.match(systemOf(r), 'ANA-FACT');
    assert.match(systemOf(r), 'AGENT-FACT');
    assert.not.match(JSON.stringify(r.messages), 'BOB-FACT');
  }
  const bob = systemOf(asked('BOB-ASK')[0]!);
  assert.match(bob, 'BOB-FACT');
  assert.match(bob, 'AGENT-FACT');
  assert.not.match(bob, 'ANA-FACT');
  // The operator's own console (no user named) sees the agent memory only.
  await say(await newSession(), 'OP-ASK: hello');
  assert.not.match(JSON.stringify(asked('OP-ASK')[0]!.messages), /ANA-FACT|BOB-FACT/);

  const texts = (zones: { core: { text: string }[] }) => zones.core.map((e) => e.text);
  assert.equal(texts((await api('GET', '/api/agents/assistant/memory?user=ana')).json), ['ANA-FACT: Ana drinks green tea']);
  assert.equal(texts((await api('GET', '/api/agents/assistant/memory?user=bob')).json), ['BOB-FACT: Bob drinks black coffee']);
  assert.equal(texts((await api('GET', '/api/agents/assistant/memory')).json), ['AGENT-FACT: the office is closed on Fridays']);
  const show = await oryx(['memory', 'show', '--user', 'ana', '--json']);
  assert.is(show.code, 0, show.stderr);
  assert.equal(texts(JSON.parse(show.stdout)), ['ANA-FACT: Ana drinks green tea']);
});

test("a run reads its own user's memory through the memory tools only: read_file of another user's memory, or a session's checkpoints, is denied", async () => {
  // bob's memory and session A's checkpoints exist on disk (the tests above wrote them).
  assert.ok((await readdir(path.join(dir, '.oryxos', 'memory', 'users'))).includes('bob'));
  const targets = ['.oryxos/memory/users/bob/MEMORY.md', `.oryxos/memory/sessions/${sessionA}/MEMORY.md`, '.oryxos/memory/users'];
  for (const target of targets) await chat(`READ:${target}`, { user: 'ana' });
  const results = requests.map((r) => r.messages.at(-1)!).filter((m) => m.role === 'tool').slice(-targets.length).map((m) => String(m.content));
  for (const [i, result] of results.entries()) {
    assert.match(result, /^Denied by the sandbox: read of .* is not allowed: \.oryxos\/memory\/(users|sessions) is on the sandbox deny list/, `${targets[i]}: ${result}`);
    assert.not.match(result, /BOB-FACT|locker code/);
  }
  // Ana's own memory reaches her through the prompt and recall_memory, as before.
  assert.match(systemOf(asked('READ:')[0]!), 'ANA-FACT');
});

test('migration: checkpoints of several sessions left in MEMORY.md by an earlier version move to their sessions, once', async () => {
  await chat('CONV-1 first', {}, { 'x-session-id': 'conv-1' });
  await chat('CONV-2 first', {}, { 'x-session-id': 'conv-2' });
  const cp = (s: string, n: number, text: string) => `- 2025-06-0${n}: Earlier conversation: the user asked "${text}"; the answer was "ok" (session ${s} #${n})`;
  const file = path.join(dir, '.oryxos', 'memory', 'MEMORY.md');
  const before = await readFile(file, 'utf8');
  await writeFile(file, `${before.trimEnd()}\n- 2025-06-01: KEPT-FACT: deploys need two approvals\n${[
    cp('conv-1', 1, 'CONV-1-OLD secret plan'), cp('conv-2', 2, 'CONV-2-OLD other plan'), cp('deleted-conv', 3, 'GONE-OLD plan'), cp('conv-1', 4, 'CONV-1-OLD later'),
  ].join('\n')}\n`);

  await say(await newSession(), 'FRESH-ASK: hi');
  const fresh = JSON.stringify(asked('FRESH-ASK')[0]!.messages);
  for (const old of ['CONV-1-OLD', 'CONV-2-OLD', 'GONE-OLD']) assert.not.match(fresh, old);
  assert.match(fresh, 'KEPT-FACT');
  const after = await readFile(file, 'utf8');
  assert.not.match(after, 'Earlier conversation');
  assert.match(after, 'KEPT-FACT: deploys need two approvals');

  await chat('CONV-1 again', {}, { 'x-session-id': 'conv-1' });
  const conv1 = systemOf(asked('CONV-1 again')[0]!);
  assert.match(conv1, 'CONV-1-OLD secret plan');
  assert.match(conv1, 'CONV-1-OLD later');
  assert.not.match(conv1, 'CONV-2-OLD');
  assert.not.match(conv1, 'GONE-OLD');
  const kept = await readFile(path.join(dir, '.oryxos', 'memory', 'migrated-checkpoints.md'), 'utf8');
  assert.match(kept, 'GONE-OLD plan');
  assert.not.match(kept, 'CONV-1-OLD');
  const session2 = await oryx(['memory', 'show', '--session', 'conv-2', '--json']);
  assert.equal(JSON.parse(session2.stdout).archive.map((e: { text: string }) => e.text).filter((t: string) => t.includes('CONV-2-OLD')).length, 1);
  assert.is(await readFile(file, 'utf8'), after, 'a later prompt changes nothing more');
  assert.match(logs, /moved 4 checkpoint\(s\) of conversations out of the MEMORY\.md of agent assistant/);
});

test("a deleted session's memory is swept (at most hourly, after a run, by whichever process runs next)", async () => {
  const sessions = path.join(dir, '.oryxos', 'memory', 'sessions');
  assert.ok((await readdir(sessions)).includes(sessionA));
  const res = await fetch(`${url}/api/sessions/${sessionA}`, { method: 'DELETE', headers: headers() });
  assert.is(res.status, 204);
  // The server will not sweep again within the hour; a marker says when anyone last did.
  // Pretend that was over an hour ago, and run from the CLI.
  const past = new Date(Date.now() - 2 * 60 * 60 * 1000);
  await writeFile(path.join(sessions, '.swept'), '');
  await utimes(path.join(sessions, '.swept'), past, past);
  const r = await oryx(['run', 'SWEEP-ASK: hello']);
  assert.is(r.code, 0, r.stderr);
  const left = await readdir(sessions);
  assert.not.ok(left.includes(sessionA), "the deleted session's checkpoints are gone");
  assert.ok(left.includes(sessionB), 'a live session keeps its memory');
  assert.ok(left.includes('conv-1'));
});

test.run();
