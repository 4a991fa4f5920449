// Benchmarks for the provider plugins (openai, ollama, replay). Run: npx tsx bench/providers.ts
// Measures what the plugins add on top of the wire: per-call latency against a loopback
// server (SDK + mapping) next to a bare fetch of the same reply, stream assembly, and replay
// lookup in a large cassette. Numbers are machine-dependent; compare runs on one machine.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Kernel, resolveConfig } from '@oryxos/kernel';
import type { ChatRequest, Provider } from '@oryxos/provider-spec';
import openai, { ChunkAssembler } from '../plugins/openai/src/index.ts';
import ollama from '../plugins/ollama/src/index.ts';
import replay from '../plugins/replay/src/index.ts';
import { openaiServer, completion, chunk } from '../plugins/openai/test/helpers/openai-server.ts';
import { ollamaServer, chatResponse } from '../plugins/ollama/test/helpers/ollama-server.ts';

const N = Number(process.env.N ?? 300);
const request = (messages = 6): ChatRequest => ({
  model: 'm',
  messages: [{ role: 'system', content: 'You are a bench.' }, ...Array.from({ length: messages }, (_, i) => ({ role: 'user' as const, content: `message ${i}` }))],
  tools: [{ name: 'echo', description: 'Echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }],
});

async function time(label: string, n: number, fn: (i: number) => Promise<unknown> | unknown) {
  for (let i = 0; i < Math.min(20, n); i++) await fn(i); // warm up
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    samples.push(performance.now() - t);
  }
  samples.sort((a, b) => a - b);
  const pct = (p: number) => samples[Math.min(samples.length - 1, Math.floor(p * samples.length))]!.toFixed(3);
  console.log(`${label.padEnd(52)} n=${String(n).padStart(5)}  p50 ${pct(0.5)} ms  p95 ${pct(0.95)} ms`);
}

async function providerFrom(plugin: ReturnType<typeof openai>, dir: string): Promise<{ provider: Provider; kernel: Kernel }> {
  const kernel = await new Kernel({ config: resolveConfig({ plugins: [plugin] }, dir) }).start();
  return { provider: kernel.provider(kernel.providerNames[0]!), kernel };
}

const dir = await mkdtemp(path.join(tmpdir(), 'oryx-bench-'));
try {
  // OpenAI: bare fetch vs provider.chat through the SDK, and a streamed answer.
  const reply = completion({ toolCalls: [{ id: 'c1', name: 'echo', args: { text: 'x'.repeat(200) } }], usage: [100, 20] });
  const oa = await openaiServer(Array.from({ length: 10_000 }, () => ({ json: reply })));
  const { provider: op, kernel: ok } = await providerFrom(openai({ baseURL: oa.url, apiKey: 'k', defaultModel: 'm' }), dir);
  await time('openai: bare fetch of the same reply (baseline)', N, () =>
    fetch(`${oa.url}/chat/completions`, { method: 'POST', body: JSON.stringify(request()) }).then((r) => r.json()));
  await time('openai: provider.chat (SDK + mapping)', N, () => op.chat(request()));
  await ok.close(); await oa.close();

  const pieces = 200;
  const sse = [chunk({ role: 'assistant', content: '' }), ...Array.from({ length: pieces }, (_, i) => chunk({ content: `tok${i} ` })), chunk({}, 'stop')];
  const os = await openaiServer(Array.from({ length: 10_000 }, () => ({ events: sse })));
  const { provider: osp, kernel: osk } = await providerFrom(openai({ baseURL: os.url, apiKey: 'k', defaultModel: 'm' }), dir);
  await time(`openai: provider.stream, ${pieces} text chunks`, Math.ceil(N / 3), async () => { for await (const _ of osp.stream!(request())) { /* drain */ } });
  await osk.close(); await os.close();

  const fragments = Array.from({ length: 1000 }, (_, i) => chunk({ tool_calls: [{ index: i % 4, ...(i < 4 ? { id: `c${i}`, function: { name: 'echo', arguments: '' } } : { function: { arguments: 'ab' } }) }] }));
  await time('openai: ChunkAssembler, 1000 tool-call fragments', N, () => {
    const a = new ChunkAssembler();
    for (const f of fragments) a.push(f as never);
    return a.response(request(), 'openai').message.toolCalls;
  });

  // Ollama: provider.chat (SDK + per-call client + mapping).
  const ol = await ollamaServer(Array.from({ length: 10_000 }, () => ({ json: chatResponse({ toolCalls: [{ name: 'echo', args: { text: 'x' } }], usage: [100, 20] }) })));
  const { provider: olp, kernel: olk } = await providerFrom(ollama({ host: ol.url, defaultModel: 'm' }), dir);
  await time('ollama: bare fetch of the same reply (baseline)', N, () =>
    fetch(`${ol.url}/api/chat`, { method: 'POST', body: JSON.stringify(request()) }).then((r) => r.json()));
  await time('ollama: provider.chat (SDK + mapping)', N, () => olp.chat(request()));
  await olk.close(); await ol.close();

  // Replay: lookup in a cassette of 2000 lines (conversations of 1..10 messages).
  const file = path.join(dir, 'big.jsonl');
  const lines: string[] = [];
  for (let i = 0; i < 2000; i++) {
    const messages = Array.from({ length: 1 + (i % 10) }, (_, j) => ({ role: 'user', content: `message ${j}${j === 0 ? ` of ${i}` : ''}` }));
    lines.push(JSON.stringify({ request: { messages }, response: { content: `answer ${i}` } }));
  }
  await writeFile(file, `${lines.join('\n')}\n`);
  const { provider: rp, kernel: rk } = await providerFrom(replay({ cassette: file }), dir);
  const hit: ChatRequest = { model: 'm', tools: [], messages: [{ role: 'system', content: 'x' }, ...Array.from({ length: 10 }, (_, j) => ({ role: 'user' as const, content: `message ${j}${j === 0 ? ' of 1999' : ''}` }))] };
  await time('replay: answer from a 2000-line cassette (cached)', N, () => rp.chat(hit));
  await rk.close();
} finally {
  await rm(dir, { recursive: true, force: true });
}
