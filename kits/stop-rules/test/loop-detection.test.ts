// The loop-detection rule on its own, call by call, with no kernel: what it says before a
// call, after a failed one, and when it stops. kernel/test/run-guard.test.ts checks the same
// rule inside real runs (the warning reaching the model, the tool-less last call).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ToolCall } from '@oryxos/provider-spec';
import { loopDetection, type LoopDetectionSettings, type StopWatch } from '../src/index.ts';

let n = 0;
const call = (name: string, args: Record<string, unknown> = {}, argsError?: string): ToolCall => ({ id: `c${++n}`, name, args, ...(argsError !== undefined ? { argsError } : {}) });
const watchFor = (settings: LoopDetectionSettings | false | undefined): StopWatch => loopDetection<{ s: typeof settings }>((run) => run.s).start({ s: settings });
const defaults = { repeat: 3, pingpong: 4 };
const isStop = (v: unknown): v is { reason: string; notice: string } => typeof v === 'object' && v !== null && 'reason' in v;

test('the rule is named loop-detection and reads its settings from the run it starts for', () => {
  const seen: unknown[] = [];
  const rule = loopDetection<{ id: number }>((run) => { seen.push(run.id); return defaults; });
  assert.is(rule.name, 'loop-detection');
  rule.start({ id: 7 });
  assert.equal(seen, [7]);
});

test('the same call `repeat` times in a row: a warning result first (not run), a stop with reason loop the next time', () => {
  const w = watchFor(defaults);
  assert.is(w.beforeCall!(call('read_file', { path: 'a' })), undefined);
  assert.is(w.beforeCall!(call('read_file', { path: 'a' })), undefined);
  const warned = w.beforeCall!(call('read_file', { path: 'a' }));
  assert.ok(warned && !isStop(warned) && warned.isError, JSON.stringify(warned));
  assert.match((warned as { content: string }).content, /^Not run\. Loop detected: you have called read_file with the same arguments 3 times in a row/);
  const stopped = w.beforeCall!(call('read_file', { path: 'a' }));
  assert.ok(isStop(stopped), JSON.stringify(stopped));
  assert.is(stopped.reason, 'loop');
  assert.is(stopped.notice, 'stopped in a loop: you have called read_file with the same arguments 3 times in a row; its result will not change');
});

test('arguments are compared canonically: key order does not matter, a different value does', () => {
  const w = watchFor({ repeat: 2, pingpong: 4 });
  assert.is(w.beforeCall!(call('grep', { pattern: 'x', path: '.' })), undefined);
  assert.ok(w.beforeCall!(call('grep', { path: '.', pattern: 'x' })), 'the same arguments in another key order repeat');
  const other = watchFor({ repeat: 2, pingpong: 4 });
  assert.is(other.beforeCall!(call('grep', { pattern: 'x' })), undefined);
  assert.is(other.beforeCall!(call('grep', { pattern: 'y' })), undefined, 'other arguments are another call');
});

test('calls whose arguments did not parse are compared by their parse error', () => {
  const w = watchFor({ repeat: 2, pingpong: 4 });
  assert.is(w.beforeCall!(call('shell', {}, 'Unexpected end of JSON input')), undefined);
  assert.ok(w.beforeCall!(call('shell', {}, 'Unexpected end of JSON input ')), 'the same error (trimmed) repeats');
  const other = watchFor({ repeat: 2, pingpong: 4 });
  assert.is(other.beforeCall!(call('shell', {}, 'error one')), undefined);
  assert.is(other.beforeCall!(call('shell', {}, 'error two')), undefined);
});

test('an A-B-A-B ping-pong over `pingpong` calls is warned, then stopped; A-A-B-B is not a ping-pong', () => {
  const w = watchFor(defaults);
  const a = () => call('read_file', { path: 'a' });
  const b = () => call('write_file', { path: 'a', text: 'x' });
  assert.is(w.beforeCall!(a()), undefined);
  assert.is(w.beforeCall!(b()), undefined);
  assert.is(w.beforeCall!(a()), undefined);
  const warned = w.beforeCall!(b());
  assert.ok(warned && !isStop(warned));
  assert.match((warned as { content: string }).content, 'you are alternating between read_file and write_file with the same arguments (4 calls)');
  const stopped = w.beforeCall!(a());
  assert.ok(isStop(stopped) && stopped.reason === 'loop', JSON.stringify(stopped));

  const plain = watchFor(defaults);
  for (const c of [a(), a(), b(), b()]) assert.is(plain.beforeCall!(c), undefined);
  const same = watchFor({ repeat: 10, pingpong: 4 });
  for (let i = 0; i < 4; i++) assert.is(same.beforeCall!(a()), undefined, 'one call four times is a repeat (under 10), not a ping-pong');
});

test('the same call failing with the same error twice: a note on the second result, a stop on the third', () => {
  const w = watchFor(defaults);
  const failed = { content: 'ENOENT: no such file', isError: true };
  assert.is(w.afterCall!(call('read_file', { path: 'x' }), failed), undefined, 'the first failure is news');
  const note = w.afterCall!(call('read_file', { path: 'x' }), failed);
  assert.type(note, 'string');
  assert.match(note as string, /^Loop detected: read_file failed twice with the same arguments and the same error/);
  const stopped = w.afterCall!(call('read_file', { path: 'x' }), failed);
  assert.ok(isStop(stopped) && stopped.reason === 'loop', JSON.stringify(stopped));
});

test('a failure with another error, or a success, is not a repeat', () => {
  const w = watchFor(defaults);
  assert.is(w.afterCall!(call('fetch', { url: 'u' }), { content: 'timeout', isError: true }), undefined);
  assert.is(w.afterCall!(call('fetch', { url: 'u' }), { content: 'HTTP 503', isError: true }), undefined, 'another error');
  assert.is(w.afterCall!(call('fetch', { url: 'u' }), { content: 'ok', isError: false }), undefined, 'a success');
  assert.is(w.afterCall!(call('fetch', { url: 'v' }), { content: 'HTTP 503', isError: true }), undefined, 'other arguments');
});

test('one warning per run: after any warning, the next loop of any kind stops the run', () => {
  const w = watchFor(defaults);
  const failed = { content: 'boom', isError: true };
  w.afterCall!(call('a', {}), failed);
  assert.type(w.afterCall!(call('a', {}), failed), 'string', 'the warning');
  for (let i = 0; i < 2; i++) assert.is(w.beforeCall!(call('b', { i: 0 })), undefined);
  assert.ok(isStop(w.beforeCall!(call('b', { i: 0 }))), 'a repeat after a warning stops at once');
});

test('settings false (or none) give a watcher that says nothing', () => {
  for (const settings of [false, undefined] as const) {
    const w = watchFor(settings);
    assert.is(w.beforeCall, undefined);
    assert.is(w.afterCall, undefined);
  }
});

test('each run gets its own watcher: one run\'s calls do not count for another', () => {
  const rule = loopDetection<{ s: LoopDetectionSettings }>((run) => run.s);
  const one = rule.start({ s: { repeat: 2, pingpong: 4 } });
  const two = rule.start({ s: { repeat: 2, pingpong: 4 } });
  assert.is(one.beforeCall!(call('x')), undefined);
  assert.is(two.beforeCall!(call('x')), undefined);
  assert.ok(one.beforeCall!(call('x')));
});

test.run();
