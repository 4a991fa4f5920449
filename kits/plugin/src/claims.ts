import { hostname } from 'node:os';
import { processAlive } from './process.ts';

/**
 * `host:pid:instance`: who holds a claim row (a door's claim of a mail, an update, a message).
 * One process may run several doors (tests do), so each gets its own instance.
 *
 * @example
 * const self = claimOwnerId(); // 'web-1:4242:ab12cd34'
 */
export function claimOwnerId(): string {
  return `${hostname()}:${process.pid}:${crypto.randomUUID().slice(0, 8)}`;
}

/**
 * Whether a claim's process may still be handling it: ours while we hold it; another process
 * on this host while its pid lives (a SIGKILL is seen at once) and it renews the claim; anyone
 * else while the claim was renewed within `leaseMs`. A claim that is not live may be taken over.
 *
 * @example
 * const live = claimLiveness(self, (key) => held.has(key), 60_000);
 * live({ key: 'm1', owner: 'web-1:4242:ab12cd34', heartbeat_at: new Date().toISOString() }, Date.now()); // true
 */
export function claimLiveness(self: string, held: (key: string) => boolean, leaseMs: number) {
  const host = hostname();
  return (row: { key: string; owner: string | null; heartbeat_at: string | null }, now: number): boolean => {
    if (row.owner === self) return held(row.key);
    const m = row.owner ? /^(.*):(\d+):[^:]+$/.exec(row.owner) : null;
    if (m && m[1] === host && Number(m[2]) !== process.pid && !processAlive(Number(m[2]))) return false;
    return row.heartbeat_at !== null && Date.parse(row.heartbeat_at) >= now - leaseMs;
  };
}
