// The call cap: one attempt's signal follows its sources through listeners that clear() removes,
// so nothing of a finished call stays attached to a run's (or a server's) long-lived signal.
import { getEventListeners } from 'node:events';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { callCap } from '../src/index.ts';

test('with(): the attempt signal aborts with a source, for that source\'s reason; fired stays false', () => {
  const run = new AbortController();
  const cap = callCap(60_000);
  const signal = cap.with(run.signal, undefined);
  run.abort(new Error('stopped by the user'));
  assert.ok(signal.aborted);
  assert.is((signal.reason as Error).message, 'stopped by the user');
  assert.is(cap.fired, false, 'fired means the cap itself cut the call');
  cap.clear();
});

test('clear(): every listener the cap added to its sources is removed', () => {
  const run = new AbortController();
  const idle = new AbortController();
  const before = getEventListeners(run.signal, 'abort').length;
  const cap = callCap(60_000);
  cap.with(run.signal, idle.signal);
  assert.is(getEventListeners(run.signal, 'abort').length, before + 1);
  cap.clear();
  assert.is(getEventListeners(run.signal, 'abort').length, before, 'the run\'s signal keeps nothing of the call');
  assert.is(getEventListeners(idle.signal, 'abort').length, 0);
});

test('the cap fires at its time: the signal aborts and fired is true; an aborted source aborts at once', async () => {
  const cap = callCap(20);
  const signal = cap.with();
  await new Promise((resolve) => setTimeout(resolve, 40));
  assert.ok(signal.aborted);
  assert.is(cap.fired, true);
  cap.clear();
  const gone = AbortSignal.abort('already');
  const late = callCap(60_000);
  assert.ok(late.with(gone).aborted);
  late.clear();
});

test.run();
