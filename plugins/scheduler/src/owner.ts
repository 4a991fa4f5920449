import { hostname } from 'node:os';
import type { ActiveRow } from './queries.ts';
import { processAlive } from '@oryxos/plugin-kit';

/** `host:pid:instance`: who claimed an execution. One process may run several schedulers (tests do). */
export function newOwnerId(): string {
  return `${hostname()}:${process.pid}:${crypto.randomUUID().slice(0, 8)}`;
}

function parseOwner(owner: string): { host: string; pid: number } | undefined {
  const m = /^(.*):(\d+):[^:]+$/.exec(owner);
  return m ? { host: m[1]!, pid: Number(m[2]) } : undefined;
}

/** The schedulers of this process that may hold executions, by owner id: whether one is still theirs. */
const inProcess = new Map<string, (id: number) => boolean>();

/**
 * Tells the other schedulers of this process (tests run several) whether an execution of
 * `owner` is still held: `held`, or nothing (`undefined`) once it holds none and will claim none.
 */
export function holdsInProcess(owner: string, held: ((id: number) => boolean) | undefined): void {
  if (held) inProcess.set(owner, held);
  else inProcess.delete(owner);
}

/**
 * Whether an execution's process may still be running it. Our own executions: while we hold
 * them; another scheduler's of this process: while it says it holds them (no clock involved,
 * so a stalled event loop never expires them; one that does not say, such as a second copy of
 * this module, by its heartbeat). Another process on this host: while its pid lives (a
 * SIGKILL is seen at once) and its heartbeat is fresh. Another host: while its heartbeat is
 * younger than `leaseMs`.
 *
 * @example
 * const live = liveness({ self: owner, held: (id) => running.has(id), leaseMs: 30_000 });
 * live({ id: 1, slot, status: 'running', owner: 'web-1:4242:ab12cd34', heartbeat_at }, Date.now());
 */
export function liveness(opts: { self: string; held(id: number): boolean; leaseMs: number }): (row: ActiveRow, now: number) => boolean {
  const host = hostname();
  return (row, now) => {
    if (row.owner === opts.self) return opts.held(Number(row.id));
    const who = row.owner ? parseOwner(row.owner) : undefined;
    if (who && who.host === host && who.pid === process.pid) {
      const holds = inProcess.get(row.owner!);
      if (holds) return holds(Number(row.id));
    } else if (who && who.host === host && !processAlive(who.pid)) return false;
    return row.heartbeat_at !== null && Date.parse(row.heartbeat_at) >= now - opts.leaseMs;
  };
}
