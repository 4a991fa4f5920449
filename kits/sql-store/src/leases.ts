import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DatabaseTx } from '@oryxos/contracts';
import { processAlive } from '@oryxos/plugin-kit';
import { OryxError, errorMessage } from '@oryxos/provider-spec';
import { storeError } from './errors.ts';
import type { StoreLog } from './session-store.ts';

interface Holder { owner: string; host: string; pid: number; acquired_at: number; expires_at: number }

/** How {@link SessionLeases.acquire} behaves while another process holds the lease. */
export interface AcquireMode {
  /** Poll until the lease is free (up to lockTimeoutMs). Default true; false fails at once. */
  wait?: boolean;
  /** Ask the holder to abort its run (it sees the request when it next renews), then wait. */
  requestCancel?: boolean;
}

/**
 * Cross-process session locks: a row in `session_leases` with an owner and an expiry,
 * renewed while held. A lease whose process is gone (same host, pid not alive: a SIGKILL)
 * is taken over at once instead of waiting for it to expire.
 */
export class SessionLeases {
  private readonly host = hostname();
  private readonly held = new Map<string, { sessionId: string; timer: NodeJS.Timeout; cancelled?: boolean }>();

  constructor(
    private readonly db: () => DatabaseTx,
    private readonly options: {
      leaseMs: number;
      lockTimeoutMs: number;
      /** Called (once per lease) when another process asks this one to stop its run on the session. */
      onCancelRequested?(sessionId: string, by: string): void;
      /** The plugin running the store, for its log lines. */
      name: string;
    },
    private readonly log: StoreLog,
  ) {}

  /** Waits (polling with backoff) until this caller holds the session; returns the release. */
  async acquire(sessionId: string, signal?: AbortSignal, mode: AcquireMode = {}): Promise<() => Promise<void>> {
    const owner = `${this.host}:${process.pid}:${crypto.randomUUID()}`;
    const deadline = Date.now() + this.options.lockTimeoutMs;
    let delay = 5;
    let asked: string | undefined;
    for (;;) {
      if (signal?.aborted) throw aborted(sessionId);
      const holder = await this.tryTake(sessionId, owner);
      if (!holder) break;
      const left = deadline - Date.now();
      if (mode.wait === false || left <= 0) throw busyError(sessionId, holder, mode);
      if (mode.requestCancel && asked !== holder.owner) {
        asked = holder.owner;
        await this.db().execute('UPDATE session_leases SET cancel_requested_by = ? WHERE session_id = ? AND owner = ?',
          [`process ${process.pid} on ${this.host}`, sessionId, holder.owner]);
      }
      try {
        await sleep(Math.min(left, delay / 2 + Math.random() * delay), undefined, { signal });
      } catch {
        throw aborted(sessionId);
      }
      delay = Math.min(delay * 2, 250);
    }
    const timer = setInterval(() => { void this.renew(sessionId, owner); }, renewEveryMs(this.options.leaseMs));
    timer.unref();
    this.held.set(owner, { sessionId, timer });
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      await this.release(owner);
    };
  }

  /** Releases every lease this process holds (on close). */
  async releaseAll(): Promise<void> {
    for (const owner of [...this.held.keys()]) await this.release(owner);
  }

  /** Undefined when taken; otherwise who holds it. */
  private async tryTake(sessionId: string, owner: string): Promise<Holder | undefined> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const now = Date.now();
      const took = await this.db().execute(
        `INSERT INTO session_leases (session_id, owner, host, pid, acquired_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (session_id) DO UPDATE SET owner = excluded.owner, host = excluded.host, pid = excluded.pid,
           acquired_at = excluded.acquired_at, expires_at = excluded.expires_at
         WHERE session_leases.expires_at < excluded.acquired_at`,
        [sessionId, owner, this.host, process.pid, now, now + this.options.leaseMs],
      );
      if (took.rowsAffected > 0) return undefined;
      const [holder] = await this.db().query<Holder>('SELECT owner, host, pid, acquired_at, expires_at FROM session_leases WHERE session_id = ?', [sessionId]);
      if (!holder) continue; // released between the two statements
      if (holder.host === this.host && Number(holder.pid) !== process.pid && !processAlive(Number(holder.pid))) {
        await this.db().execute('DELETE FROM session_leases WHERE session_id = ? AND owner = ?', [sessionId, holder.owner]);
        this.log.warn(`took over the lease on session ${sessionId} from process ${holder.pid}, which is gone`);
        continue;
      }
      return holder;
    }
    return { owner: '?', host: this.host, pid: 0, acquired_at: Date.now(), expires_at: Date.now() };
  }

  private async renew(sessionId: string, owner: string): Promise<void> {
    try {
      const [row] = await this.db().query<{ cancel_requested_by: string | null }>(
        'UPDATE session_leases SET expires_at = ? WHERE session_id = ? AND owner = ? RETURNING cancel_requested_by',
        [Date.now() + this.options.leaseMs, sessionId, owner]);
      const entry = this.held.get(owner);
      if (!row && entry) {
        this.log.warn(`lost the lease on session ${sessionId} (another process took it after it expired)`);
      }
      if (row?.cancel_requested_by && entry && !entry.cancelled) {
        entry.cancelled = true;
        this.options.onCancelRequested?.(sessionId, row.cancel_requested_by);
      }
    } catch (error) {
      this.log.warn(`could not renew the lease on session ${sessionId}: ${errorMessage(error)}`);
    }
  }

  private async release(owner: string): Promise<void> {
    const entry = this.held.get(owner);
    if (!entry) return;
    clearInterval(entry.timer);
    this.held.delete(owner);
    try {
      await this.db().execute('DELETE FROM session_leases WHERE session_id = ? AND owner = ?', [entry.sessionId, owner]);
    } catch (error) {
      // it expires on its own; the next run waits at most leaseMs
      this.log.warn(`could not release the lease on session ${entry.sessionId}: ${errorMessage(error)}`);
    }
  }
}

/**
 * How often a held lease is renewed, which is also how soon its holder sees a request to stop
 * (`oryx sessions delete --force`): a third of the lease (10 s by default).
 */
function renewEveryMs(leaseMs: number): number {
  return Math.max(250, Math.floor(leaseMs / 3));
}

function busyError(sessionId: string, holder: Holder, mode: AcquireMode): OryxError {
  const since = Number(holder.acquired_at) ? `, running since ${new Date(Number(holder.acquired_at)).toISOString()}` : '';
  const who = `process ${holder.pid} on ${holder.host}`;
  return storeError('ORYX_E_SQLITE_SESSION_BUSY',
    mode.wait === false
      ? `Session "${sessionId}" is being run by ${who}${since}`
      : `Session "${sessionId}" is in use by ${who}${since} (lease until ${new Date(Number(holder.expires_at)).toISOString()})`,
    {
      data: { sessionId, holder: { host: holder.host, pid: Number(holder.pid) } },
      ...(mode.wait === false ? { hint: `Wait for that run to finish, or stop it first: \`oryx sessions delete ${sessionId} --force\` (DELETE …?force=true over REST) asks ${who} to abort its run, waits for it, then deletes.` } : {}),
    });
}


function aborted(sessionId: string): OryxError {
  return new OryxError('ORYX_E_RUN_ABORTED', `The run was aborted while waiting for session "${sessionId}"`, {
    hint: 'The session keeps every step committed before the abort.',
  });
}
