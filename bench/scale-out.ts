// Messages per second through nginx (round-robin) to 1 and to 3 `oryx web` processes (the built
// CLI: openai provider, postgres store, audit, web) on one PostgreSQL database, with a loopback
// model speaking the OpenAI wire protocol that answers after `delay` ms.
//
// Run (after `npm run build`, with PostgreSQL and nginx as .ci/run sets them up):
//   node --import tsx bench/scale-out.ts [sessions=200] [clients=64] [requests=1200] [rounds=3] [delay=100]
import http from 'node:http';
import { freshDatabase } from '../plugins/postgres/test/pg.ts';
import { call, clusterProject, startModel, startNginx, startWeb, stop, type Proc } from '../test/fixtures/cluster.ts';

const [sessionsArg, clientsArg, requestsArg, roundsArg, delayArg] = process.argv.slice(2).map(Number);
const SESSIONS = sessionsArg || 200;
const CLIENTS = clientsArg || 64;
const REQUESTS = requestsArg || 1200;
const ROUNDS = roundsArg || 3;
const DELAY = delayArg ?? 100;

const model = await startModel(DELAY);
const results: string[] = [];
try {
  for (const count of [1, 3]) {
    const database = await freshDatabase('oryx_bench');
    const procs: Proc[] = [];
    let nginx: Awaited<ReturnType<typeof startNginx>> | undefined;
    const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
    try {
      const dir = await clusterProject('bench-scale-');
      // one at a time: they migrate the empty database first
      for (let i = 1; i <= count; i++) procs.push(await startWeb(`w${i}`, dir, database.url, model.url));
      nginx = await startNginx(procs.map((p) => p.url!.replace('http://', '')));
      const ids: string[] = [];
      for (let i = 0; i < SESSIONS; i++) ids.push(JSON.parse((await call(agent, nginx.url, 'POST', '/api/sessions', { agent: 'assistant' })).text).id);
      const rounds: { rate: number; p50: number; p99: number; errors: number }[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        let next = 0;
        let errors = 0;
        const latencies: number[] = [];
        const busy = new Set<string>();
        const started = performance.now();
        await Promise.all(Array.from({ length: CLIENTS }, async () => {
          while (next < REQUESTS) {
            const n = next++;
            // one request per session at a time, as a chat client sends them
            let id = ids[n % SESSIONS]!;
            for (let k = 1; busy.has(id); k++) id = ids[(n + k) % SESSIONS]!;
            busy.add(id);
            const t = performance.now();
            const r = await call(agent, nginx!.url, 'POST', `/api/sessions/${id}/messages`, { message: `question ${n}` });
            busy.delete(id);
            if (r.status === 200) latencies.push(performance.now() - t);
            else if (++errors < 3) console.error(r.status, r.text.slice(0, 200));
          }
        }));
        latencies.sort((a, b) => a - b);
        rounds.push({ rate: latencies.length / ((performance.now() - started) / 1000), p50: latencies[Math.floor(latencies.length / 2)]!, p99: latencies[Math.floor(latencies.length * 0.99)]!, errors });
      }
      const best = rounds.reduce((a, b) => (b.rate > a.rate ? b : a));
      results.push(`${count} process${count > 1 ? 'es' : ''}: ${best.rate.toFixed(0).padStart(4)} messages/s   p50 ${best.p50.toFixed(0)} ms   p99 ${best.p99.toFixed(0)} ms   `
        + `(rounds: ${rounds.map((r) => r.rate.toFixed(0)).join(', ')}; ${rounds.reduce((n, r) => n + r.errors, 0)} errors)`);
      console.log(results.at(-1));
    } finally {
      agent.destroy();
      await nginx?.close();
      await Promise.all(procs.map((p) => stop(p)));
      await database.drop();
    }
  }
  console.log(`\nnode ${process.version}; ${SESSIONS} sessions, ${CLIENTS} clients, ${REQUESTS} requests per round, best of ${ROUNDS}, model ${DELAY} ms`);
} finally {
  await model.close();
}
