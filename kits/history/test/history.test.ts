// The default history strategy's pure functions: what a prompt holds of a session, cut to the
// budget, made safe to send. The kernel's use of them (through a run) is kernel/test/prompt.test.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Message } from '@oryxos/provider-spec';
import { cutText, fitHistory, groupTurns, messageChars, openCalls, repairHistory, TokenEstimator, windowStart } from '../src/index.ts';

const u = (content: string): Message => ({ role: 'user', content });
const a = (content: string, ids: string[] = []): Message => ({ role: 'assistant', content, ...(ids.length ? { toolCalls: ids.map((id) => ({ id, name: 't', args: {} })) } : {}) });
const r = (id: string, content = `result ${id}`): Message => ({ role: 'tool', toolCallId: id, name: 't', content });

test('groupTurns splits at user messages and keeps tool pairs inside their turn', () => {
  const turns = groupTurns([u('1'), a('', ['x']), r('x'), a('done'), u('2'), a('ok')]);
  assert.is(turns.length, 2);
  assert.equal(turns[0]!.map((m) => m.role), ['user', 'assistant', 'tool', 'assistant']);
});

test('repairHistory closes dangling tool calls and drops orphan results', () => {
  const fixed = repairHistory([u('1'), a('', ['x', 'y']), r('x'), u('2'), r('zzz'), a('fine')]);
  assert.equal(fixed.map((m) => m.role === 'tool' ? `tool:${m.toolCallId}:${m.isError ?? false}` : m.role),
    ['user', 'assistant', 'tool:x:false', 'tool:y:true', 'user', 'assistant']);
});

test('cutText keeps head and tail and says how much was cut', () => {
  const text = 'a'.repeat(5_000) + 'END';
  const cut = cutText(text, 1_000);
  assert.ok(cut.length <= 1_000);
  assert.ok(cut.startsWith('aaa'));
  assert.ok(cut.endsWith('END'));
  assert.match(cut, 'cut 4,003 of 5,003 characters');
  assert.is(cutText('short', 1_000), 'short');
});

test('windowStart moves in blocks of half the window, so prompts between two moves share their start', () => {
  assert.equal([19, 20, 21, 25, 30, 31, 40, 41].map((n) => windowStart(n, 20)), [0, 0, 10, 10, 10, 20, 20, 30]);
  assert.equal([1, 2, 3].map((n) => windowStart(n, 1)), [0, 1, 2], 'a window of one moves every turn');
  // Between two moves the first turn kept stays the same: the prompt only grows at its end.
  const starts = Array.from({ length: 9 }, (_, i) => windowStart(21 + i, 20));
  assert.ok(starts.every((s) => s === 10));
});

test('openCalls: the last response\'s calls without a result; none once a user message came after', () => {
  assert.equal(openCalls([u('1'), a('', ['x', 'y']), r('x')])?.calls.map((c) => c.id), ['y']);
  assert.is(openCalls([u('1'), a('', ['x']), r('x')]), undefined);
  assert.is(openCalls([u('1'), a('', ['x']), u('2')]), undefined);
});

test('fitHistory: a tool result over a quarter of the budget is cut the same way every time; the oldest turns leave whole in quarter blocks', () => {
  const big = r('x', 'z'.repeat(10_000));
  const once = fitHistory([u('q'), a('', ['x']), big], 8_000, 0);
  const again = fitHistory([u('q'), a('', ['x']), big], 8_000, 0);
  assert.is(once.history[2]!.content, again.history[2]!.content, 'stable cut');
  assert.ok(once.history[2]!.content.length <= 2_000);
  assert.ok(once.cut.some((c) => c.section === 'tool:t'));

  const turns = Array.from({ length: 12 }, (_, i) => [u(`question ${i} `.padEnd(400, '.')), a(`answer ${i} `.padEnd(400, '.'))]).flat();
  const fitted = fitHistory(turns, 6_000, 0);
  assert.ok(fitted.chars <= 6_000 && fitted.chars >= 6_000 * 0.5, `fits: ${fitted.chars}`);
  assert.ok(fitted.dropped.length > 0 && fitted.dropped.every((t) => t[0]!.role === 'user'), 'whole turns');
  assert.is(fitted.history[0]!.role, 'user');
  // One more turn at the end finds the same cut: the prompt keeps its first bytes.
  const next = fitHistory([...turns, u('one more')], 6_000, fitted.dropped.length);
  assert.is(next.history[0]!.content, fitted.history[0]!.content);
  assert.is(fitHistory(turns, 1_000_000, 0).dropped.length, 0, 'nothing leaves under the budget');
  assert.is(messageChars(a('hi', ['x'])), 2 + JSON.stringify([{ id: 'x', name: 't', args: {} }]).length);
  // Measured once a message (the calls' JSON is remembered), and each message by its own calls.
  const called = a('hi', ['x']);
  assert.is(messageChars(called), messageChars(called));
  assert.is(messageChars({ ...called, content: 'hello' }), messageChars(called) + 3, 'a copy with the same calls: its own text');
  assert.is(messageChars(a('hi', ['a-much-longer-call-id'])), 2 + JSON.stringify([{ id: 'a-much-longer-call-id', name: 't', args: {} }]).length);
});

test('TokenEstimator: four characters a token until the provider says, then its ratio within 1 to 8', () => {
  const e = new TokenEstimator();
  assert.is(e.estimate(400), 100);
  e.calibrate(300, 100);
  assert.is(e.estimate(300), 100);
  e.calibrate(10_000, 1);
  assert.is(e.charsPerToken, 8);
  e.calibrate(100, 0);
  assert.is(e.charsPerToken, 8, 'a report of 0 tokens teaches nothing');
});

test.run();
