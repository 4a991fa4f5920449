// No memory kept per model call (issue 44): 20,000 scripted calls through the real SDK against
// a loopback server, alternately whole and streamed, all with one long-lived abort signal (a
// run's, a server's), in a child process with --expose-gc; the heap after GC must stay flat.
// Before the provider kit's call cap followed its sources with listeners removed at the end of
// the call (it combined them with AbortSignal.any), the openai provider grew ~38 MB here.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { probeLeak } from '@oryxos/provider-kit/testing';

/** "Flat within a few MB": well below what one kept signal per call adds (~2 KB a call, ~38 MB here). */
const FLAT_MB = 6;

test('20,000 model calls on the anthropic provider keep the heap flat (after GC, within a few MB)', async () => {
  const figures = await probeLeak(new URL('./helpers/anthropic-server.ts', import.meta.url), 'anthropicDialect', 20_000);
  console.log(`  anthropic: heap after GC ${figures.warmMb.toFixed(1)} MB after ${figures.warmupCalls} calls, ${figures.endMb.toFixed(1)} MB after ${figures.calls} (${figures.seconds.toFixed(1)} s)`);
  assert.ok(figures.growthMb < FLAT_MB, `the heap grew ${figures.growthMb.toFixed(1)} MB over ${figures.calls - figures.warmupCalls} calls`);
});

test.run();
