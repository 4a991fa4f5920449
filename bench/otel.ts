// What tracing costs a run, and what a collector that is down or hangs changes: runs of three
// model calls and two tool calls (an instant in-process model, the in-memory store), without the
// otel plugin, exporting to a loopback collector that answers, to a port nothing listens on
// (connection refused), and to one that accepts and never answers; then how long closing the
// kernel (the last flush) takes. Configurations are interleaved round by round, so the load of a
// shared machine falls on each alike. The first run of each kernel (it loads the SDK) is timed
// apart. Run: node --import tsx bench/otel.ts [runs per round] [rounds]
import { createServer } from 'node:http';
import { createServer as netServer, type AddressInfo, type Socket } from 'node:net';
import type { Plugin } from '@oryxos/kernel';
import { testKernel } from '@oryxos/kernel/testing';
import type { Provider } from '@oryxos/provider-spec';
import otel from '@oryxos/plugin-otel';

const runsPerRound = Number(process.argv[2] ?? 200);
const rounds = Number(process.argv[3] ?? 5);

function bench(): Plugin {
  let calls = 0;
  const provider: Provider = {
    name: 'bench', defaultModel: 'bench',
    async chat(request) {
      const n = calls++ % 3;
      return {
        message: n === 2 ? { role: 'assistant', content: 'done' } : { role: 'assistant', content: '', toolCalls: [{ id: `c${calls}`, name: 'noop', args: {} }] },
        usage: { inputTokens: 100, outputTokens: 10 }, finishReason: n === 2 ? 'stop' : 'tool_calls', model: request.model,
      };
    },
  };
  return {
    name: 'bench', version: '1.0.0', kernel: '^1',
    setup(k) {
      k.registerProvider(provider);
      k.registerTool({ name: 'noop', description: 'does nothing', source: 'plugin', inputSchema: { type: 'object' }, async execute() { return 'ok'; } });
    },
  };
}

const listen = async (server: { listen(port: number, host: string, cb: () => void): void; address(): unknown }) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};
const live = createServer((req, res) => { req.resume(); req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end()); });
const liveUrl = await listen(live);
const sockets = new Set<Socket>();
const hole = netServer((s) => { sockets.add(s); s.resume(); });
const holeUrl = await listen(hole);
const gone = netServer();
const goneUrl = await listen(gone);
await new Promise((r) => gone.close(r));

const configs: [string, Plugin[]][] = [
  ['no otel', []],
  // The export timeout of a command that runs and exits (oryx run); a serving host waits 10 s.
  ['collector up', [otel({ endpoint: liveUrl, exportTimeoutMs: 2000 })]],
  ['refused', [otel({ endpoint: goneUrl, exportTimeoutMs: 2000 })]],
  ['hanging', [otel({ endpoint: holeUrl, exportTimeoutMs: 2000 })]],
];
const perRun = new Map<string, number[]>(configs.map(([name]) => [name, []]));
const firstRun = new Map<string, number[]>(configs.map(([name]) => [name, []]));
const closeMs = new Map<string, number[]>(configs.map(([name]) => [name, []]));

for (let round = 0; round < rounds; round++) {
  for (const [name, extra] of configs) {
    const t = await testKernel({ plugins: [bench(), ...extra], agents: { assistant: { tools: ['noop'] } } });
    let t0 = performance.now();
    await t.service.process({ agent: 'assistant', message: 'warm' });
    firstRun.get(name)!.push(performance.now() - t0);
    t0 = performance.now();
    for (let i = 0; i < runsPerRound; i++) await t.service.process({ agent: 'assistant', message: 'go' });
    perRun.get(name)!.push((performance.now() - t0) / runsPerRound);
    t0 = performance.now();
    await t.close();
    closeMs.get(name)!.push(performance.now() - t0);
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const base = median(perRun.get('no otel')!);
console.log(`${rounds} rounds of ${runsPerRound} runs (3 model calls, 2 tool calls, 6 spans each); medians over rounds`);
console.log('| configuration | µs per run | vs no otel | first run (loads the SDK) | close (last flush) |');
console.log('| --- | --- | --- | --- | --- |');
for (const [name] of configs) {
  const us = median(perRun.get(name)!) * 1000;
  console.log(`| ${name} | ${us.toFixed(0)} | ${name === 'no otel' ? '—' : `+${(us - base * 1000).toFixed(0)} µs`} | ${median(firstRun.get(name)!).toFixed(1)} ms | ${median(closeMs.get(name)!).toFixed(0)} ms |`);
}
for (const s of sockets) s.destroy();
live.close();
hole.close();
