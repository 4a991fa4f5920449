// How late a scheduled slot starts, and what a tick costs: a task every second for N slots
// (Bree arms the slot, a worker thread posts it back, the main process claims it in SQLite and
// starts the run), and the memory of the process before and after.
// Run: node --import tsx bench/scheduler.ts [slots]
import { rm } from 'node:fs/promises';
import { scripted, testKernel } from '@oryxos/kernel/testing';
import scheduler, { type ExecutionRow } from '@oryxos/plugin-scheduler';
import sqlite from '@oryxos/plugin-sqlite';

const slots = Number(process.argv[2] ?? 30);
const t = await testKernel({
  plugins: [scripted(Array.from({ length: slots + 10 }, () => ({ text: 'ok' }))), sqlite(), scheduler({ tasks: [{ name: 'bench', agent: 'assistant', message: 'm', every: '1s' }] })],
  agents: { assistant: { tools: [] } },
});
const rss0 = process.memoryUsage().rss;
const cpu0 = process.cpuUsage();
await t.kernel.startDoors(['scheduler']);
const rows = async () => t.kernel.service('database').query<ExecutionRow>("SELECT * FROM task_executions WHERE status = 'ok' ORDER BY slot");
while ((await rows()).length < slots) await new Promise((r) => setTimeout(r, 200));
await t.kernel.stopDoors();
const cpu = process.cpuUsage(cpu0);
const late = (await rows()).slice(0, slots).map((e) => Date.parse(e.started_at!) - Date.parse(e.slot)).sort((a, b) => a - b);
const q = (p: number) => late[Math.min(late.length - 1, Math.floor(p * late.length))];
console.log(`${slots} slots every 1s: start delay after the slot time p50 ${q(0.5)} ms, p90 ${q(0.9)} ms, max ${late.at(-1)} ms`);
console.log(`process CPU per slot (tick + claim + run + record): ${((cpu.user + cpu.system) / 1000 / slots).toFixed(1)} ms; RSS ${Math.round(rss0 / 2 ** 20)} → ${Math.round(process.memoryUsage().rss / 2 ** 20)} MiB`);
await t.close();
await rm(t.dir, { recursive: true, force: true });
