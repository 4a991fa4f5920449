// The Telegram door with the real grammY client against a loopback Bot API server (built from
// the official reference, see test/bot-api.ts): the only replaced parts are Telegram and the model.
import { rm } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { echoTool, scripted, toolsPlugin } from '@oryxos/kernel/testing';
import { isOryxError } from '@oryxos/provider-spec';
import approvals from '@oryxos/plugin-approvals';
import telegram, { splitMessage, toMarkdownV2 } from '../src/index.ts';
import { renderMarkdownV2 } from './bot-api.ts';
import { ALICE, BOB, MALLORY, TOKEN_ENV, echoing, lastUser, rig, runWatch, slowWriter, until } from './helpers.ts';

const sent = (api: { calls: { method: string; params: Record<string, any> }[] }, method = 'sendMessage') => api.calls.filter((c) => c.method === method);

test('a chat is a session for its Telegram user: answered as a reply, followed up in the same session; /new starts another', async () => {
  const watch = runWatch();
  const model = echoing();
  const r = await rig({ model, plugins: [watch] });
  try {
    r.api.text(ALICE, 'Hello there.');
    await until(() => r.api.chat(ALICE).length === 1 && r.api.chat(ALICE)[0]!.text === 'Echo: Hello there.', 5000, 'the answer');
    const first = sent(r.api)[0]!;
    assert.is(first.params.parse_mode, 'MarkdownV2');
    assert.is(first.params.reply_parameters.message_id, 100000, 'a reply to the person\'s message');
    r.api.text(ALICE, 'And again!');
    await until(() => r.api.chat(ALICE).some((m) => m.text === 'Echo: And again!'), 5000, 'the second answer');
    assert.ok(model.requests[1]!.messages.some((m) => m.role === 'assistant' && m.content === 'Echo: Hello there.'), 'the second run saw the first');
    assert.is(watch.runs[0]!.sessionId, watch.runs[1]!.sessionId);
    assert.equal(watch.runs.map((x) => [x.user, x.door]), [['telegram:111', 'telegram'], ['telegram:111', 'telegram']]);
    const session = await r.t.kernel.service('sessions').get(watch.runs[0]!.sessionId);
    assert.equal(session!.external, { door: 'telegram', id: '111' });

    r.api.text(ALICE, '/new');
    await until(() => r.api.chat(ALICE).some((m) => m.text.startsWith('Started a new conversation')), 5000, '/new');
    r.api.text(ALICE, 'Fresh start');
    await until(() => r.api.chat(ALICE).some((m) => m.text === 'Echo: Fresh start'), 5000, 'the answer after /new');
    assert.is.not(watch.runs[2]!.sessionId, watch.runs[0]!.sessionId, 'a new session');
    assert.equal((await r.t.kernel.service('sessions').get(watch.runs[2]!.sessionId))!.external, { door: 'telegram', id: '111#1' });
    assert.not.ok(model.requests[2]!.messages.some((m) => m.content === 'Echo: Hello there.'), 'the new session starts empty');
    assert.equal((await r.rows()).map((x) => x.status), ['done', 'done', 'done', 'done']);
  } finally { await r.close(); }
});

test('a streamed answer edits the reply at a bounded rate (editIntervalMs), ending with the whole text', async () => {
  const text = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
  const r = await rig({ model: slowWriter(text, 25), telegram: { editIntervalMs: 250 } });
  try {
    const started = Date.now();
    r.api.text(ALICE, 'Write slowly');
    await until(() => r.api.chat(ALICE)[0]?.text === text, 10_000, 'the whole answer');
    const took = Date.now() - started;
    const [m] = r.api.chat(ALICE);
    const edits = m!.edits;
    assert.ok(edits.length >= 2, `it streamed: ${edits.length} edits`);
    const times = [sent(r.api)[0]!, ...r.api.calls.filter((c) => c.method === 'editMessageText')].map((c) => (c as unknown as { at: number }).at);
    for (let i = 1; i < times.length; i++) assert.ok(times[i]! - times[i - 1]! >= 240, `calls ${i - 1} and ${i} were ${times[i]! - times[i - 1]!} ms apart`);
    assert.ok(times.length <= Math.ceil(took / 250) + 1, `${times.length} calls in ${took} ms`);
    assert.ok(text.startsWith(edits[0]!.text.trim()) && edits[0]!.text.length < text.length, 'the first edit showed part of the answer');
  } finally { await r.close(); }
});

test('Markdown is escaped as the Bot API requires (code kept as code); a long answer is split within the limit', async () => {
  const tricky = 'Use `npm i` (fast). Price: 1.5! *not bold* _x_ [link](y) #tag a-b=c {x}|y> ~z\\w\n```js\nconst a = `b` + "\\\\";\n```';
  const long = Array.from({ length: 300 }, (_, i) => `Line ${i}: lorem ipsum dolor sit amet.`).join('\n');
  const model = scripted([{ text: tricky }, { text: long }]);
  const r = await rig({ model, telegram: { stream: false } });
  try {
    r.api.text(ALICE, 'tricky');
    await until(() => r.api.chat(ALICE).length === 1, 5000, 'the tricky answer');
    assert.is(r.api.chat(ALICE)[0]!.text, 'Use npm i (fast). Price: 1.5! *not bold* _x_ [link](y) #tag a-b=c {x}|y> ~z\\w\nconst a = `b` + "\\\\";\n', 'shown as written, code as code');
    r.api.text(ALICE, 'long');
    const count = 1 + splitMessage(long).length;
    assert.ok(count >= 4, 'the answer needs three messages or more');
    await until(() => r.api.chat(ALICE).length === count, 5000, 'the long answer');
    const pieces = r.api.chat(ALICE).slice(1);
    assert.ok(pieces.every((p) => p.text.length <= 4096), pieces.map((p) => p.text.length).join());
    assert.is(pieces.map((p) => p.text).join('\n'), long, 'nothing lost at the cuts');
  } finally { await r.close(); }
});

test('toMarkdownV2 passes the server\'s parser for every reserved character; splitMessage closes and reopens a cut fence', () => {
  const all = '_*[]()~`>#+-=|{}.!\\ plain';
  assert.is(renderMarkdownV2(toMarkdownV2(all)), all);
  const code = `\`\`\`py\n${'x = 1\n'.repeat(1200)}\`\`\``;
  const pieces = splitMessage(code);
  assert.ok(pieces.length >= 2);
  for (const p of pieces) {
    assert.ok(p.length <= 4096);
    assert.ok(p.startsWith('```py\n') && p.trimEnd().endsWith('```'), 'each piece is a whole code block');
    renderMarkdownV2(toMarkdownV2(p));
  }
});

test('a stranger is refused and audited, no run starts; with a refusal text that is all they get', async () => {
  const model = echoing();
  const r = await rig({ model, telegram: { refusal: 'This bot is private.' } });
  try {
    r.api.text(MALLORY, 'Let me in');
    r.api.text(MALLORY, 'From a group', -500);
    r.api.text(ALICE, 'I am allowed');
    await until(() => r.api.chat(ALICE).some((m) => m.text === 'Echo: I am allowed'), 5000, 'the allowed answer');
    await until(async () => (await r.rows()).filter((x) => x.status === 'refused').length === 2, 5000, 'two refusals');
    assert.equal(r.api.chat(MALLORY).map((m) => m.text), ['This bot is private.']);
    assert.equal(r.api.chat(-500).map((m) => m.text), ['This bot is private.']);
    assert.is(model.requests.length, 1, 'only the allowed message reached the model');
    const events = await r.t.kernel.service('database').query<{ decision: string; target: string; reason: string }>("SELECT decision, target, reason FROM sandbox_events WHERE kind = 'door' ORDER BY id");
    assert.equal(events.map((e) => [e.decision, e.target]), [['deny', 'telegram user 999 in chat 999'], ['deny', 'telegram user 999 in chat -500']]);
    assert.match(events[0]!.reason, 'is not on telegram({ allow })');
  } finally { await r.close(); }
});

test('approval buttons go only to the chat whose run asks; a press from another chat is refused; Approve continues the run there', async () => {
  const echo = echoTool();
  const model = scripted([{ text: 'Bob answered.' }, { toolCalls: [{ name: 'echo', args: { text: 'hi' } }] }, { text: 'Echoed it.' }]);
  const r = await rig({ model, plugins: [approvals(), toolsPlugin(echo)], agents: { assistant: { tools: ['echo'], approve: ['echo'] } } });
  try {
    r.api.text(BOB, 'just chatting');
    await until(() => r.api.chat(BOB).some((m) => m.text === 'Bob answered.'), 5000, 'Bob\'s answer');
    r.api.text(ALICE, 'echo hi please');
    const buttons = await until(() => r.api.chat(ALICE).find((m) => m.reply_markup), 5000, 'the approval buttons');
    const [pending] = await r.t.kernel.service('approvals').list({ status: 'pending' });
    assert.equal(buttons.reply_markup.inline_keyboard[0].map((b: { text: string; callback_data: string }) => [b.text, b.callback_data]), [['Approve', `ap:${pending!.id}:y`], ['Deny', `ap:${pending!.id}:n`]]);
    assert.ok(r.api.chat(ALICE).some((m) => m.text.startsWith('A step needs your approval: echo')), 'the reply says what waits');
    assert.equal([...r.api.messages.values()].filter((m) => m.reply_markup).map((m) => m.chat_id), [ALICE], 'buttons in Alice\'s chat only');

    // Bob (allowed, but not in this chat) presses a forged button for Alice's approval.
    r.api.press(BOB, BOB, buttons.message_id, `ap:${pending!.id}:y`);
    await until(async () => (await r.rows()).some((x) => x.kind === 'callback_query' && x.status === 'refused'), 5000, 'the forged press refused');
    assert.is((await r.t.kernel.service('approvals').get(pending!.id))!.status, 'pending');
    assert.equal(echo.calls, []);
    const forged = await r.t.kernel.service('database').query<{ reason: string }>("SELECT reason FROM sandbox_events WHERE kind = 'door'");
    assert.equal(forged.map((e) => e.reason), [`approval ${pending!.id} is not one of chat ${BOB}`]);

    r.api.press(ALICE, ALICE, buttons.message_id, `ap:${pending!.id}:y`);
    await until(() => r.api.chat(ALICE).some((m) => m.text === 'Echoed it.'), 5000, 'the continued answer');
    const decided = await r.t.kernel.service('approvals').get(pending!.id);
    assert.equal([decided!.status, decided!.decidedBy], ['used', 'telegram:111']);
    assert.equal(echo.calls, [{ text: 'hi' }]);
    assert.match(r.api.messages.get(buttons.message_id)!.text, /^Approved by User111: echo/);
    assert.not.ok(r.api.messages.get(buttons.message_id)!.reply_markup, 'the buttons are gone');
    assert.ok(sent(r.api, 'answerCallbackQuery').some((c) => c.params.text === 'This button is not for this chat.'));
  } finally { await r.close(); }
});

test('429 Too Many Requests: the call waits the retry_after the Bot API names, then goes through', async () => {
  const r = await rig();
  try {
    r.api.floodNext('sendMessage', 1, 1);
    r.api.text(ALICE, 'Flooded?');
    await until(() => r.api.chat(ALICE).some((m) => m.text === 'Echo: Flooded?'), 8000, 'the answer after the wait');
    const calls = sent(r.api) as unknown as { at: number }[];
    assert.is(calls.length, 2, 'one refused with 429, one accepted');
    assert.ok(calls[1]!.at - calls[0]!.at >= 1000, `waited ${calls[1]!.at - calls[0]!.at} ms`);
    assert.is(r.api.chat(ALICE).length, 1, 'shown once');
  } finally { await r.close(); }
});

test('the offset is kept across restarts: the next process confirms what was taken, and nothing is answered twice', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'oryx-telegram-'));
  const first = await rig({ dir });
  const api = first.api;
  try {
    const a = api.text(ALICE, 'one');
    const b = api.text(ALICE, 'two');
    await until(() => api.chat(ALICE).length === 2, 5000, 'two answers');
    await first.close({ keepApi: true });
    const polled = api.offsets().length;
    const stored = await rig({ dir, api });
    try {
      await until(() => api.offsets().length > polled, 5000, 'the second process polling');
      assert.is(api.offsets()[polled], Math.max(a, b) + 1, `the restarted process polls from the stored offset: ${api.offsets().join()}`);
      api.text(ALICE, 'three');
      await until(() => api.chat(ALICE).length === 3, 5000, 'the third answer');
      await new Promise((res) => setTimeout(res, 300));
      assert.equal(api.chat(ALICE).map((m) => m.text), ['Echo: one', 'Echo: two', 'Echo: three'], 'each once');
      assert.equal((await stored.rows()).map((x) => [x.status, x.attempts]), [['done', 1], ['done', 1], ['done', 1]]);
    } finally { await stored.close({ keepApi: true }); }
  } finally {
    await api.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('/stop aborts the answer being written', async () => {
  const r = await rig({ model: slowWriter(Array.from({ length: 200 }, () => 'slow').join(' '), 30) });
  try {
    r.api.text(ALICE, 'Write a lot');
    await until(() => r.api.chat(ALICE).length === 1, 5000, 'the answer to begin');
    r.api.text(ALICE, '/stop');
    await until(() => r.api.chat(ALICE).some((m) => m.text === 'Stopped.'), 5000, '/stop to answer');
    const rows = await until(async () => { const all = await r.rows(); return all.every((x) => x.status !== 'claimed') && all; }, 5000, 'both updates done');
    assert.equal(rows.map((x) => x.stop_reason), ['aborted', null]);
  } finally { await r.close(); }
});

test('options are checked when telegram() is called, naming the field; a missing token fails the start naming the variable', async () => {
  for (const [bad, field] of [[{ allow: { users: ['alice'] } }, 'allow.users.0'], [{ allow: {}, tokenEnv: '123:abc' }, 'tokenEnv'], [{ allow: {}, apiRoot: 'ftp://x' }, 'apiRoot'], [{}, 'allow']] as const) {
    try { telegram(bad as never); assert.unreachable(field); } catch (e) {
      assert.ok(isOryxError(e) && e.code === 'ORYX_E_TELEGRAM_OPTIONS', String(e));
      assert.match((e as Error).message, field);
    }
  }
  const r = await rig();
  try {
    const door = r.t.kernel.doors.find((d) => d.name === 'telegram')!;
    const ok = await door.check!({ signal: AbortSignal.timeout(5000) });
    assert.equal(ok.map((l) => [l.check, l.status]), [['telegram bot', 'ok'], ['telegram allow', 'ok']]);
    assert.match(ok[0]!.detail, `@oryx_test_bot (4242) at ${r.api.url}, token from env ${TOKEN_ENV}`);
    assert.not.match(JSON.stringify(ok), r.api.token);
  } finally { await r.close(); }
  delete process.env[TOKEN_ENV];
  const { testKernel } = await import('@oryxos/kernel/testing');
  const { default: sqlite } = await import('@oryxos/plugin-sqlite');
  const t = await testKernel({ plugins: [echoing(), sqlite(), telegram({ tokenEnv: TOKEN_ENV, allow: { users: [ALICE] } })] });
  try {
    await t.kernel.startDoors(['telegram']);
    assert.unreachable();
  } catch (e) {
    assert.ok(isOryxError(e) && e.code === 'ORYX_E_TELEGRAM_SECRET_MISSING', String(e));
    assert.match((e as Error).message, TOKEN_ENV);
  } finally { await t.close(); }
  void lastUser;
});

test.run();
