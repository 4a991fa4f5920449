/**
 * A memory probe for a provider: `calls` scripted model calls (alternately whole and streamed)
 * through the provider's real SDK against a loopback server, all with one long-lived abort
 * signal (a run's, a server's), and the heap after a full GC once warmed up and at the end.
 * A provider that keeps something per call alive — an abort listener its SDK never removes on
 * a signal tied to the long-lived one — grows linearly. Run it in a child process started with
 * `--expose-gc` ({@link probeLeak} does), so the suite's own heap does not blur the figures.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ChatRequest } from '@oryxos/provider-spec';
import { testKernel } from '@oryxos/kernel/testing';
import type { WireDialect } from './suite.ts';
import { wireServer } from './wire-server.ts';

/** What {@link probeLeak} measured: heap used after GC, in MB, and the time it took. */
export interface LeakFigures { calls: number; warmupCalls: number; warmMb: number; endMb: number; growthMb: number; seconds: number }

const heapMb = () => {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run the probe with node --expose-gc');
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed / 1e6;
};

/** Runs the probe in this process (it must have `--expose-gc`). */
export async function heapOverCalls(dialect: WireDialect, calls: number, warmupCalls = Math.min(2000, Math.floor(calls / 10))): Promise<LeakFigures> {
  const whole = dialect.answer({ content: 'ok', usage: [3, 1] });
  const streamed = dialect.stream(['o', 'k'], [3, 1]);
  const server = await wireServer((body) => (body?.stream ? { events: streamed } : { json: whole }), { framing: dialect.framing, basePath: dialect.basePath, side: dialect.side });
  const t = await testKernel({ plugins: [dialect.plugin(server.url, { maxRetries: 0 })] });
  const started = performance.now();
  try {
    const provider = t.kernel.provider(dialect.provider);
    const lives = new AbortController();
    const request: ChatRequest = { model: 'm', tools: [], messages: [{ role: 'user', content: 'hi' }], signal: lives.signal };
    let warmMb = 0;
    for (let i = 1; i <= calls; i++) {
      if (i % 2) await provider.chat(request);
      else for await (const _ of provider.stream!(request)) { /* drained */ }
      // The server keeps each request it saw; those are the test's memory, not the provider's.
      server.requests.length = 0;
      if (i === warmupCalls) warmMb = heapMb();
    }
    const endMb = heapMb();
    return { calls, warmupCalls, warmMb, endMb, growthMb: endMb - warmMb, seconds: (performance.now() - started) / 1000 };
  } finally {
    await t.close();
    await server.close();
  }
}

/**
 * Runs {@link heapOverCalls} in a child process (`node --expose-gc`), for the dialect exported
 * as `exportName` by the module at `dialectModule`.
 *
 * @example
 * const figures = await probeLeak(new URL('./helpers/openai-server.ts', import.meta.url), 'openaiDialect', 20_000);
 * assert.ok(figures.growthMb < 8);
 */
export function probeLeak(dialectModule: URL, exportName: string, calls: number): Promise<LeakFigures> {
  // Beside this module: leak-child.ts in the sources, leak-child.js once built.
  const childScript = fileURLToPath(new URL(`./leak-child${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url));
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', childScript, dialectModule.href, exportName, String(calls)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { err += d; });
  return new Promise((resolve, reject) => {
    child.on('close', (code) => {
      const line = out.trim().split('\n').at(-1) ?? '';
      try { if (code === 0) { resolve(JSON.parse(line) as LeakFigures); return; } } catch { /* below */ }
      reject(new Error(`the leak probe failed (exit ${code}): ${err || out}`));
    });
  });
}
