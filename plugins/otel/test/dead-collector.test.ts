// A collector that is down (nothing listens: connection refused) or hangs (it accepts the
// connection and never answers) changes nothing in a run's outcome and does not hold it up: the
// export goes on beside the runs, failures are logged once, spans over the queue's bound are
// dropped and counted, and closing waits at most the export timeout. The bound asserted here is
// loose on purpose (a run that waited for an export would take the export timeout, 1.5 s here);
// what tracing costs a run is measured in bench/otel.ts and written in the README.
import { createServer as netServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RunResult } from '@oryxos/kernel';
import { echoTool, scripted, testKernel, toolsPlugin } from '@oryxos/kernel/testing';
import otel, { type OtelOptions } from '../src/index.ts';

const EXPORT_TIMEOUT_MS = 1500;
/** A run that waited for an export would take EXPORT_TIMEOUT_MS; a run here takes a few ms. */
const RUN_BOUND_MS = 750;

/** Three model calls, two tool calls, per run. */
const step = (n: number) => (n % 3 === 2 ? { text: `answer ${n}` } : { toolCalls: [{ name: 'echo', args: { text: `t${n}` } }] });

/** A port nothing listens on. */
async function deadPort(): Promise<string> {
  const server = netServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

/** A collector that takes connections and never answers. */
async function blackHole(): Promise<{ url: string; connections: () => number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let count = 0;
  const server = netServer((socket) => { count++; sockets.add(socket); socket.on('close', () => sockets.delete(socket)); socket.resume(); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => count,
    async close() { for (const s of sockets) s.destroy(); await new Promise((resolve) => server.close(resolve)); },
  };
}

async function runs(n: number, options?: OtelOptions): Promise<{ results: RunResult[]; ms: number[]; closeMs: number; warnings: string[] }> {
  const llm = scripted(Array.from({ length: n * 3 }, (_, i) => step(i)));
  const t = await testKernel({ plugins: [llm, toolsPlugin(echoTool()), ...(options ? [otel(options)] : [])] });
  const results: RunResult[] = [];
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    results.push(await t.service.process({ agent: 'assistant', message: `go ${i}` }));
    ms.push(performance.now() - started);
  }
  const closing = performance.now();
  await t.close();
  return { results, ms, closeMs: performance.now() - closing, warnings: t.warnings };
}

const outcome = (r: RunResult) => [r.stopReason, r.answer, r.iterations, r.budget.toolCalls];

for (const kind of ['refused', 'hanging'] as const) {
  test(`a collector that is ${kind === 'refused' ? 'down' : 'hanging'}: same outcomes, runs not held up, one warning, close within the export timeout`, async () => {
    const hole = kind === 'hanging' ? await blackHole() : undefined;
    const endpoint = hole?.url ?? await deadPort();
    try {
      const plain = await runs(6);
      const traced = await runs(6, { endpoint, scheduledDelayMs: 5, exportTimeoutMs: EXPORT_TIMEOUT_MS });
      assert.equal(traced.results.map(outcome), plain.results.map(outcome), 'the same outcomes');
      assert.ok(Math.max(...traced.ms) < RUN_BOUND_MS, `no run waited for the collector (slowest ${Math.round(Math.max(...traced.ms))} ms)`);
      assert.ok(traced.closeMs < EXPORT_TIMEOUT_MS + 1000, `close waited ${Math.round(traced.closeMs)} ms`);
      if (hole) assert.ok(hole.connections() >= 1, 'the exporter did reach the hanging collector');
      const exportWarnings = traced.warnings.filter((w) => w.includes('ORYX_E_OTEL_EXPORT: could not export'));
      assert.is(exportWarnings.length, 1, traced.warnings.join('\n'));
      assert.match(exportWarnings[0]!, endpoint);
      assert.ok(traced.warnings.some((w) => /spans were not exported to/.test(w)), 'the count of what was lost, at close');
    } finally {
      await hole?.close();
    }
  });
}

test('the queue is bounded: spans past maxQueueSize are dropped and counted, the first drop logged once', async () => {
  const hole = await blackHole();
  try {
    const traced = await runs(5, { endpoint: hole.url, scheduledDelayMs: 1, maxQueueSize: 5, maxExportBatchSize: 5, exportTimeoutMs: EXPORT_TIMEOUT_MS });
    assert.ok(Math.max(...traced.ms) < RUN_BOUND_MS);
    const full = traced.warnings.filter((w) => w.includes('ORYX_E_OTEL_QUEUE_FULL: 5 spans wait for export'));
    assert.is(full.length, 1, traced.warnings.join('\n'));
    // 5 runs × 6 spans: one batch of 5 in flight (hanging), 5 queued, the other 20 dropped.
    const summary = traced.warnings.find((w) => w.includes('spans were not exported to'))!;
    assert.match(summary, /^otel: ORYX_E_OTEL_QUEUE_FULL: 30 spans were not exported to .* \(20 dropped with the queue full, 5 in failed exports, 5 unsent at close\); 0 were$/);
  } finally {
    await hole.close();
  }
});

test.run();
