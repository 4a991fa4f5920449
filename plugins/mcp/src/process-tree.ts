import { execFile } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { processAlive } from '@oryxos/plugin-kit';

/**
 * Child processes of child processes: a server started through `npx` or a shell script is a
 * tree, and closing stdin or killing the direct child does not always end the rest of it.
 */

type ParentMap = Map<number, number[]>;

function parseStat(stat: string): { pid: number; ppid: number } | undefined {
  // The command name (field 2) may hold spaces and parentheses; the fields after the last ')' are fixed.
  const close = stat.lastIndexOf(')');
  const pid = Number.parseInt(stat, 10);
  const ppid = Number(stat.slice(close + 2).split(' ')[1]);
  return Number.isFinite(pid) && Number.isFinite(ppid) ? { pid, ppid } : undefined;
}

function addChild(map: ParentMap, pid: number, ppid: number): void {
  const list = map.get(ppid);
  if (list) list.push(pid); else map.set(ppid, [pid]);
}

async function parentMap(): Promise<ParentMap> {
  const map: ParentMap = new Map();
  let entries: string[] | undefined;
  try { entries = await readdir('/proc'); } catch { /* not Linux: ask ps */ }
  if (entries) {
    await Promise.all(entries.filter((e) => /^\d+$/.test(e)).map(async (e) => {
      try {
        const p = parseStat(await readFile(`/proc/${e}/stat`, 'utf8'));
        if (p) addChild(map, p.pid, p.ppid);
      } catch { /* the process ended meanwhile */ }
    }));
    return map;
  }
  const out = await new Promise<string>((resolve) => {
    execFile('ps', ['-A', '-o', 'pid=,ppid='], (error, stdout) => resolve(error ? '' : stdout));
  });
  for (const line of out.split('\n')) {
    const [pid, ppid] = line.trim().split(/\s+/).map(Number);
    if (pid && ppid !== undefined && Number.isFinite(ppid)) addChild(map, pid, ppid);
  }
  return map;
}

function walk(map: ParentMap, pid: number): number[] {
  const out: number[] = [];
  const queue = [...(map.get(pid) ?? [])];
  while (queue.length) {
    const next = queue.shift()!;
    out.push(next);
    queue.push(...(map.get(next) ?? []));
  }
  return out;
}

/** Every descendant of `pid` (children, grandchildren…), best effort. */
export async function descendants(pid: number): Promise<number[]> {
  return walk(await parentMap(), pid);
}

/** The same, synchronously, for the `exit` handler (Linux /proc only; elsewhere none). */
export function descendantsSync(pid: number): number[] {
  const map: ParentMap = new Map();
  let entries: string[];
  try { entries = readdirSync('/proc'); } catch { return []; }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const p = parseStat(readFileSync(`/proc/${e}/stat`, 'utf8'));
      if (p) addChild(map, p.pid, p.ppid);
    } catch { /* ended meanwhile */ }
  }
  return walk(map, pid);
}


/** Sends a signal, ignoring processes that have already gone. */
export function signal(pids: number[], sig: NodeJS.Signals): void {
  for (const pid of pids) {
    try { process.kill(pid, sig); } catch { /* already gone */ }
  }
}

/** SIGTERM, a grace period, then SIGKILL for whatever is still alive. */
export async function reap(pids: number[], graceMs = 1000): Promise<void> {
  let alive = pids.filter(processAlive);
  if (alive.length === 0) return;
  signal(alive, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    await sleep(25);
    alive = alive.filter(processAlive);
    if (alive.length === 0) return;
  }
  signal(alive, 'SIGKILL');
}
