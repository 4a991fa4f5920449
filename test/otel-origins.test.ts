// What starts a run is the parent of its span: a REST request (a SERVER span in the caller's
// trace when it sent a `traceparent`, else a new one), a scheduler slot, or a bare trace context
// passed with the run. The web and scheduler plugins describe the request or slot as data
// (`run.origin`) and import nothing of the otel plugin. The loopback collector is the otel
// plugin's test helper.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Plugin } from '@oryxos/kernel';
import { scripted, testKernel } from '@oryxos/kernel/testing';
import scheduler from '@oryxos/plugin-scheduler';
import sqlite from '@oryxos/plugin-sqlite';
import web from '@oryxos/plugin-web';
import otel from '@oryxos/plugin-otel';
import { otlpReceiver, type Receiver, type ReceivedSpan } from '../plugins/otel/test/helpers/otlp-receiver.ts';

const TOKEN = 'a-token-of-sixteen-chars-or-more';
const CALLER = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331' };

async function traced(collector: Receiver, plugins: Plugin[]) {
  return testKernel({ plugins: [scripted(Array.from({ length: 10 }, () => ({ text: 'ok' }))), ...plugins, otel({ endpoint: collector.url, scheduledDelayMs: 20 })] });
}
const runOf = (spans: ReceivedSpan[], parent: ReceivedSpan) => spans.find((s) => s.name === 'invoke_agent assistant' && s.parentSpanId === parent.spanId);

test('a REST request is a SERVER span in the caller\'s trace (its traceparent), the run its child; without one, a new trace', async () => {
  const collector = await otlpReceiver();
  const t = await traced(collector, [web({ token: TOKEN })]);
  try {
    const { url } = await t.kernel.service('web').listen({ port: 0 });
    const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
    const session = await (await fetch(`${url}/api/sessions`, { method: 'POST', headers: auth, body: '{}' })).json() as { id: string };
    const post = (headers: Record<string, string>) => fetch(`${url}/api/sessions/${session.id}/messages`, { method: 'POST', headers: { ...auth, ...headers }, body: JSON.stringify({ message: 'hi' }) });
    assert.is((await post({ traceparent: `00-${CALLER.traceId}-${CALLER.spanId}-01`, tracestate: 'vendor=1' })).status, 200);
    assert.is((await post({})).status, 200);
  } finally {
    await t.close();
  }
  try {
    const requests = collector.spans.filter((s) => s.name === 'POST /api/sessions/:id/messages');
    assert.is(requests.length, 2);
    const [continued, fresh] = [requests.find((s) => s.traceId === CALLER.traceId)!, requests.find((s) => s.traceId !== CALLER.traceId)!];
    assert.equal([continued.kind, continued.parentSpanId, continued.attributes['http.request.method'], continued.attributes['http.route']], [2, CALLER.spanId, 'POST', '/api/sessions/:id/messages']);
    assert.ok(runOf(collector.spans, continued), 'the run is the request\'s child, in the caller\'s trace');
    assert.is(runOf(collector.spans, continued)!.traceId, CALLER.traceId);
    assert.is(fresh.parentSpanId, '', 'no traceparent: the request starts a trace');
    assert.ok(runOf(collector.spans, fresh));
    assert.ok(continued.endMs >= runOf(collector.spans, continued)!.endMs, 'the request span ends with its run');
  } finally {
    await collector.close();
  }
});

test('a scheduler slot is the parent span of its run', async () => {
  const collector = await otlpReceiver();
  const t = await traced(collector, [sqlite(), scheduler({ tasks: [{ name: 'brief', agent: 'assistant', message: 'report', cron: '0 8 * * *' }] })]);
  try {
    const row = await t.kernel.service('scheduler').run('brief');
    assert.is(row.status, 'ok');
  } finally {
    await t.close();
  }
  try {
    const slot = collector.spans.find((s) => s.name === 'scheduler brief')!;
    assert.ok(slot, 'the slot span');
    assert.equal([slot.kind, slot.parentSpanId, slot.attributes['oryx.task.name'], slot.attributes['oryx.task.fired_by'], slot.attributes['oryx.run.stop_reason']], [1, '', 'brief', 'manual', 'final']);
    assert.ok(runOf(collector.spans, slot), 'the run is the slot\'s child');
  } finally {
    await collector.close();
  }
});

test('a trace context passed with a run (no origin name) is the run span\'s parent directly', async () => {
  const collector = await otlpReceiver();
  const t = await traced(collector, []);
  try {
    await t.service.process({ agent: 'assistant', message: 'hi', origin: { carrier: { traceparent: `00-${CALLER.traceId}-${CALLER.spanId}-01` } } });
  } finally {
    await t.close();
  }
  try {
    const run = collector.spans.find((s) => s.name === 'invoke_agent assistant')!;
    assert.equal([run.traceId, run.parentSpanId], [CALLER.traceId, CALLER.spanId]);
    assert.is(collector.spans.length, 2, 'the run and its model call, nothing else');
  } finally {
    await collector.close();
  }
});

test.run();
