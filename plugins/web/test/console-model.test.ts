// The console's logic that needs no browser: the SSE reader, the chat model built from history
// or from stream events, stop notices, the run's status line, the address fragment and number formats.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { count, duration, pretty, prettyJson, when } from '../console/format.ts';
import { formatHash, parseHash } from '../console/route.ts';
import { readSse } from '../console/sse.ts';
import { applyEvent, fromHistory, stopNoticeOf, type Item, type RunStreamEvent, type StoredMessage } from '../console/transcript.ts';
import { elapsedText, nextStatus, phaseText, startStatus, statusText, tokensText } from '../console/run-status.ts';

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({ start(c) { for (const chunk of chunks) c.enqueue(encoder.encode(chunk)); c.close(); } });
}

async function events(chunks: string[]) {
  const out = [];
  for await (const e of readSse(streamOf(chunks))) out.push(e);
  return out;
}

test('readSse: events split anywhere across chunks, CR, LF and CRLF line ends, comments, multi-line data', async () => {
  const text = 'event: token\r\ndata: {"text":"a"}\r\n\r\n: keepalive\n\nevent: done\rdata: line one\rdata: line two\r\r';
  const whole = await events([text]);
  assert.equal(whole, [{ event: 'token', data: '{"text":"a"}' }, { event: 'done', data: 'line one\nline two' }]);
  for (let size = 1; size < 7; size++) {
    const chunks = text.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g'))!;
    assert.equal(await events(chunks), whole, `in chunks of ${size}`);
  }
  assert.equal(await events(['data: no name\n\n', 'data: cut short']), [{ data: 'no name' }], 'an event without its blank line is not one');
  assert.equal(await events(['data:x\n\n']), [{ data: 'x' }], 'the space after the colon is optional');
});

const stored = (seq: number, message: StoredMessage['message']): StoredMessage => ({ seq, createdAt: '2026-01-01T00:00:00Z', message });

test('fromHistory: messages in order, tool calls as cards carrying their results; the audit adds denials, durations and approvers', () => {
  const items = fromHistory([
    stored(1, { role: 'system', content: 'hidden' }),
    stored(2, { role: 'user', content: 'read two files' }),
    stored(3, { role: 'assistant', content: 'Reading.', toolCalls: [{ id: 'a', name: 'read_file', args: { path: 'x' } }, { id: 'b', name: 'read_file', args: { path: '/etc' } }] }),
    stored(4, { role: 'tool', toolCallId: 'a', name: 'read_file', content: 'x body', isError: false }),
    stored(5, { role: 'tool', toolCallId: 'b', name: 'read_file', content: 'Denied by the sandbox: no', isError: true }),
    stored(6, { role: 'assistant', content: '', toolCalls: [{ id: 'c', name: 'slow', args: {} }] }),
    stored(7, { role: 'assistant', content: 'Done.' }),
  ], new Map([
    ['b', { status: 'denied', durationMs: 2, deniedReason: 'no', approval: { decision: 'denied', by: 'bob', reason: 'no' } }],
    ['a', { status: 'ok', durationMs: 14, approval: { decision: 'approved', by: 'alice' } }],
  ]));
  assert.equal(items.map((i) => [i.kind, i.kind === 'tool' ? `${i.callId}:${i.status}` : i.text]), [
    ['user', 'read two files'], ['assistant', 'Reading.'], ['tool', 'a:ok'], ['tool', 'b:denied'], ['tool', 'c:error'], ['assistant', 'Done.'],
  ]);
  const [, , a, b, c] = items as [Item, Item, Item & { kind: 'tool' }, Item & { kind: 'tool' }, Item & { kind: 'tool' }];
  assert.is(a.result, 'x body');
  assert.is(a.durationMs, 14);
  assert.is(b.deniedReason, 'no');
  assert.equal(a.approval, { decision: 'approved', by: 'alice' }, 'who let the call run');
  assert.equal(b.approval, { decision: 'denied', by: 'bob', reason: 'no' });
  assert.is(c.approval, undefined, 'nobody was asked');
  assert.is(c.result, undefined, 'a call with no stored result was cut short, never "running"');
  assert.equal(fromHistory([stored(1, { role: 'tool', toolCallId: 'zz', content: 'orphan' })]), [], 'a result without its call is left out');
  const plain = fromHistory([
    stored(1, { role: 'assistant', content: '', toolCalls: [{ id: 'e', name: 'x', args: {} }] }),
    stored(2, { role: 'tool', toolCallId: 'e', content: 'boom', isError: true }),
  ]);
  assert.is((plain[0] as Item & { kind: 'tool' }).status, 'error', 'without the audit an error stays an error');
  const paused = fromHistory([stored(1, { role: 'assistant', content: '', toolCalls: [{ id: 'w', name: 'shell', args: {} }, { id: 'x', name: 'shell', args: {} }] })], new Map(), new Set(['w']));
  assert.equal(paused.map((i) => (i as Item & { kind: 'tool' }).status), ['waiting', 'error'], 'a call waiting for approval is shown as such; one without is cut short');
});

test('applyEvent: tokens grow one streaming answer, a tool call ends it and starts a card, its result completes the card', () => {
  const run: RunStreamEvent[] = [
    { event: 'token', data: { text: 'Let me ', iteration: 1 } },
    { event: 'token', data: { text: 'look.', iteration: 1 } },
    { event: 'tool_call', data: { id: 'c1', name: 'read_file', args: { path: 'a' } } },
    { event: 'tool_call', data: { id: 'c2', name: 'read_file', args: { path: '/x' } } },
    { event: 'tool_result', data: { id: 'c2', name: 'read_file', content: 'Denied', isError: true, denied: 'outside the roots' } },
    { event: 'tool_result', data: { id: 'c1', name: 'read_file', content: 'body', isError: false } },
    { event: 'token', data: { text: 'Found it.', iteration: 2 } },
  ];
  const states: Item[][] = [];
  let items: Item[] = [];
  run.forEach((e, i) => { items = applyEvent(items, e, 1000 + i * 10, 'live'); states.push(items); });
  assert.equal(states[1]![0], { kind: 'assistant', key: 'live0', text: 'Let me look.', streaming: true });
  assert.equal(states[2]![0], { kind: 'assistant', key: 'live0', text: 'Let me look.' }, 'no longer streaming once a tool is called');
  assert.equal(states[3]!.map((i) => (i.kind === 'tool' ? i.status : i.kind)), ['assistant', 'running', 'running']);
  const [, c1, c2, answer] = items as [Item, Item & { kind: 'tool' }, Item & { kind: 'tool' }, Item];
  assert.equal([c1.status, c1.result, c1.durationMs], ['ok', 'body', 30]);
  assert.equal([c2.status, c2.deniedReason, c2.durationMs], ['denied', 'outside the roots', 10]);
  assert.equal(answer, { kind: 'assistant', key: 'live3', text: 'Found it.', streaming: true });
  const done = applyEvent(items, { event: 'done', data: { answer: 'Found it.', stopReason: 'final', iterations: 2 } }, 2000, 'live');
  assert.is((done[3] as { streaming?: boolean }).streaming, undefined);
  assert.is((states[0]![0] as { text: string }).text, 'Let me ', 'each event gives a new list; the old one is unchanged');
});

test('stopNoticeOf: nothing for a final answer; stops said in plain words, once; a failure keeps the code and hint the server sends', () => {
  assert.is(stopNoticeOf({ event: 'done', data: { answer: 'x', stopReason: 'final', iterations: 1 } }), undefined);
  assert.is(stopNoticeOf({ event: 'token', data: { text: 'x', iteration: 1 } }), undefined);
  const limit = stopNoticeOf({ event: 'done', data: { answer: '', stopReason: 'limit', iterations: 4, limit: { name: 'max_iterations', value: 4 } } })!;
  assert.is(limit.title, 'Stopped: the step limit (4) was reached');
  assert.match(limit.message!, '(4 model calls)');
  assert.match(limit.hint!, 'max_iterations');
  const budget = stopNoticeOf({ event: 'done', data: { answer: '', stopReason: 'budget', iterations: 2, limit: { name: 'max_tokens', value: 20000 } } })!;
  assert.is(budget.title, 'Stopped: the run used up its token budget (20,000 tokens)');
  assert.equal(stopNoticeOf({ event: 'done', data: { answer: '', stopReason: 'budget', iterations: 3, error: { code: 'ORYX_E_RUN_BUDGET', message: 'spent', hint: 'raise it' } } }), {
    reason: 'budget', code: 'ORYX_E_RUN_BUDGET', message: 'spent', hint: 'raise it',
  });
  assert.match(stopNoticeOf({ event: 'done', data: { answer: '', stopReason: 'loop', iterations: 3 } })!.title!, 'going round in circles');
  assert.equal(stopNoticeOf({ event: 'done', data: { answer: '', stopReason: 'brand_new', iterations: 3 } }), { reason: 'brand_new' }, 'unknown and without details: its name');
  assert.equal(stopNoticeOf({ event: 'error', data: { code: 'ORYX_E_LLM_AUTH', message: 'bad key', hint: 'check it' } }), {
    reason: 'error', code: 'ORYX_E_LLM_AUTH', message: 'bad key', hint: 'check it',
  });
  // The server's wording of a stop (its message and its hint both say "stopped") becomes one plain sentence.
  const stopped = stopNoticeOf({ event: 'error', data: { code: 'ORYX_E_WEB_STOPPED', message: 'The run was stopped (POST /api/sessions/:id/stop); the session keeps every step', hint: 'The run was stopped on request (POST /api/sessions/:id/stop)' } })!;
  assert.equal(stopped, { reason: 'stopped', code: 'ORYX_E_WEB_STOPPED', title: 'Stopped: you pressed Stop', message: 'Everything up to that point is kept in the session: send the next message when you are ready.' });
  const timeout = stopNoticeOf({ event: 'error', data: { code: 'ORYX_E_WEB_TIMEOUT', message: 'The run took longer than 60000 ms and was aborted' } })!;
  assert.is(timeout.title, 'Stopped: the run took longer than the server allows (60 s)');
});

test('the run status line: thinking, then the tool running, then thinking again; approval; tokens and time', () => {
  let s = startStatus(1_000);
  assert.is(statusText(s, 1_000), 'Thinking · 0 s');
  const events: RunStreamEvent[] = [
    { event: 'usage', data: { inputTokens: 1200, outputTokens: 40, cacheReadTokens: 1024, calls: 1 } },
    { event: 'tool_call', data: { id: 'c1', name: 'read_file', args: {} } },
  ];
  for (const e of events) s = nextStatus(s, e);
  assert.is(s.phase, 'tool');
  assert.is(statusText(s, 13_500), 'Calling tool read_file · 12 s · 1,200 in (1,024 cached) · 40 out tokens');
  s = nextStatus(s, { event: 'tool_call', data: { id: 'c2', name: 'list_dir', args: {} } });
  assert.is(phaseText(s), 'Calling tool read_file, list_dir');
  s = nextStatus(s, { event: 'tool_result', data: { id: 'c1', name: 'read_file', content: '', isError: false } });
  assert.is(phaseText(s), 'Calling tool list_dir');
  s = nextStatus(s, { event: 'tool_result', data: { id: 'c2', name: 'list_dir', content: '', isError: false } });
  assert.is(s.phase, 'thinking', 'the results go back to the model');
  s = nextStatus(s, { event: 'tool_call', data: { id: 'c3', name: 'write_file', args: {} } });
  s = nextStatus(s, { event: 'approval_required', data: { id: 'a1', tool: 'write_file', summary: 'write' } });
  assert.is(phaseText(s), 'Waiting for approval of write_file');
  assert.equal([elapsedText(59_999), elapsedText(185_000)], ['59 s', '3 min 05 s']);
  assert.is(tokensText(undefined), undefined);
});

test('the address fragment: session and view kept, a handed-over token read but never written back', () => {
  assert.equal(parseHash('#token=abc&s=s-1&view=timeline'), { view: 'timeline', session: 's-1', token: 'abc' });
  assert.equal(parseHash(''), { view: 'chat' });
  assert.equal(parseHash('#view=elsewhere'), { view: 'chat' }, 'an unknown view is the chat');
  assert.is(formatHash({ session: 'a b&c', view: 'memory' }), '#s=a+b%26c&view=memory');
  assert.equal(parseHash(formatHash({ session: 'a b&c', view: 'memory' })), { session: 'a b&c', view: 'memory' });
  assert.is(formatHash({ view: 'chat' }), '');
});

test('formats: durations, token counts, relative times, JSON', () => {
  assert.equal([duration(0), duration(840.4), duration(2400), duration(12_345), duration(185_000), duration(-1)], ['0 ms', '840 ms', '2.4 s', '12 s', '3 min 5 s', '–']);
  assert.equal([count(950), count(1234), count(34_567), count(1_500_000)], ['950', '1.2k', '35k', '1.5M']);
  const now = Date.parse('2026-03-01T12:00:00Z');
  assert.equal(['2026-03-01T11:59:30Z', '2026-03-01T11:55:00Z', '2026-03-01T09:00:00Z', '2026-02-20T00:00:00Z', 'nonsense'].map((t) => when(t, now)),
    ['just now', '5 min ago', '3 h ago', '2026-02-20', '']);
  assert.is(prettyJson('{"a":[1]}'), '{\n  "a": [\n    1\n  ]\n}');
  assert.is(prettyJson('42'), undefined, 'only objects and arrays');
  assert.is(prettyJson('not json'), undefined);
  assert.is(pretty({ a: 1 }), '{\n  "a": 1\n}');
  assert.is(pretty('plain'), 'plain');
});

test.run();
