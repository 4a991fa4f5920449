// The built `oryx` with otel() in a project's config and the standard variables: `oryx run`
// exports its spans before it exits (the kernel's close hook flushes them), and with a collector
// that hangs it still answers at once and exits within the export timeout (2 s for a command
// that runs and exits) plus the flush margin. Needs `npm run build`.
import { createServer as netServer, type AddressInfo, type Socket } from 'node:net';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOryx, tempProject, writeAgents } from '@oryxos/kernel/testing';
import { otlpReceiver } from './helpers/otlp-receiver.ts';

async function project(): Promise<string> {
  const dir = await tempProject('otel-cli-');
  await writeFile(path.join(dir, 'oryx.config.ts'), `import { defineConfig } from '@oryxos/kernel';
import { scripted } from '@oryxos/kernel/testing';
import otel from '@oryxos/plugin-otel';
export default defineConfig({ plugins: [scripted([{ text: 'hi there' }]), otel()] });
`);
  await writeAgents(path.join(dir, '.oryxos'), { assistant: { tools: [] } });
  return dir;
}

test('oryx run exports its run before it exits, named by OTEL_SERVICE_NAME', async () => {
  const collector = await otlpReceiver();
  const dir = await project();
  try {
    const r = await runOryx(['run', 'hello'], { cwd: dir, env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_SERVICE_NAME: 'cli-test' } });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, 'hi there');
    const run = collector.spans.find((s) => s.name === 'invoke_agent assistant');
    assert.ok(run, `the run's span arrived before exit (got ${collector.spans.map((s) => s.name).join(', ') || 'nothing'})`);
    assert.equal([run!.resource['service.name'], run!.attributes['oryx.run.door'], run!.attributes['oryx.run.stop_reason']], ['cli-test', 'cli', 'final']);
    assert.ok(collector.spans.some((s) => s.name === 'chat scripted-model' && s.parentSpanId === run!.spanId));
  } finally {
    await collector.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('oryx run with a collector that never answers: the same answer, and it exits within the export timeout (2 s) and the flush margin', async () => {
  const sockets = new Set<Socket>();
  const hole = netServer((s) => { sockets.add(s); s.resume(); });
  await new Promise<void>((resolve) => hole.listen(0, '127.0.0.1', resolve));
  const collector = await otlpReceiver();
  const dir = await project();
  const timed = async (endpoint: string) => {
    const started = Date.now();
    const r = await runOryx(['run', 'hello'], { cwd: dir, env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint } });
    return { ...r, ms: Date.now() - started };
  };
  try {
    const up = await timed(collector.url);
    const hanging = await timed(`http://127.0.0.1:${(hole.address() as AddressInfo).port}`);
    assert.equal([hanging.code, hanging.stdout], [up.code, up.stdout], hanging.stderr);
    assert.match(hanging.stdout, 'hi there');
    assert.ok(sockets.size >= 1, 'the export reached the collector');
    // At most the export timeout and the margin later than with a collector that answers (and a second of slack for a loaded machine).
    if (process.env.OTEL_TEST_TIMES) console.log(`up ${up.ms} ms, hanging ${hanging.ms} ms`);
    assert.ok(hanging.ms - up.ms < 2250 + 1000, `exited ${hanging.ms - up.ms} ms later than with a collector that answers (${up.ms} ms)`);
    assert.match(hanging.stderr, /ORYX_E_OTEL_EXPORT/);
  } finally {
    await collector.close();
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => hole.close(resolve));
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
