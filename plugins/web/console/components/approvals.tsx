import { useEffect, useState } from 'preact/hooks';
import { ApiError, type Api } from '../api.ts';
import { pretty } from '../format.ts';
import { nextStatus, startStatus, type RunStatus } from '../run-status.ts';

/** A pending approval as `GET /api/approvals` lists it (what the console shows of it). */
export interface PendingApproval {
  id: string;
  sessionId: string;
  tool: string;
  toolCallId: string;
  args: unknown;
  asks: { reason: string }[];
  requestedAt: string;
  expiresAt?: string;
  /** What a `write_file` / `edit_file` call would change, as a unified diff (the server's, as the terminal shows it). */
  diff?: string;
}

/** The pending approvals of a session, oldest first; none when the server has no approvals service. */
export async function pendingApprovals(api: Api, sessionId: string): Promise<PendingApproval[]> {
  try {
    const { items } = await api.get<{ items: PendingApproval[] }>(`api/approvals?status=pending&session=${encodeURIComponent(sessionId)}`);
    return items.reverse();
  } catch (e) {
    if (e instanceof ApiError && e.code === 'ORYX_E_WEB_NO_APPROVALS') return [];
    throw e;
  }
}

/** How often the console looks for approvals other doors left pending (a CLI run that paused, a scheduled run). */
export const PENDING_POLL_MS = 3000;

/**
 * The pending approvals of every session, polled: what the session list's badges count and
 * what tells a chat that its session has a new one to show. Empty without an approvals plugin.
 */
export function usePendingApprovals(api: Api, enabled: boolean, version: number): PendingApproval[] {
  const [pending, setPending] = useState<PendingApproval[]>([]);
  useEffect(() => {
    if (!enabled) return;
    let current = true;
    const poll = () => {
      api.get<{ items: PendingApproval[] }>('api/approvals?status=pending&limit=1000&diff=false')
        .then(({ items }) => { if (current) setPending((old) => (sameIds(old, items) ? old : items)); }, () => {});
    };
    poll();
    const timer = setInterval(poll, PENDING_POLL_MS);
    return () => { current = false; clearInterval(timer); };
  }, [api, enabled, version]);
  return pending;
}

const sameIds = (a: PendingApproval[], b: PendingApproval[]) => a.length === b.length && a.every((x, i) => x.id === b[i]!.id);

/** How many approvals wait in each session. */
export function pendingBySession(pending: PendingApproval[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const a of pending) counts.set(a.sessionId, (counts.get(a.sessionId) ?? 0) + 1);
  return counts;
}

/**
 * Tool calls of this session waiting for a person: what each would do and why it asks, with
 * Approve and Deny (and a reason the model gets with a denial). `onDecided` runs after a
 * decision the server accepted, or one another decider made first (409).
 */
export function ApprovalsPanel({ api, approvals, onDecided, onProgress }: {
  api: Api; approvals: PendingApproval[]; onDecided(): void;
  /** The live status of the run a decision resumes, as its events arrive; undefined when it is over. */
  onProgress?(status: RunStatus | undefined): void;
}) {
  const [busy, setBusy] = useState<string | undefined>();
  const [reasons, setReasons] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<string | undefined>();
  if (!approvals.length) return null;
  const decide = async (a: PendingApproval, decision: 'approve' | 'deny') => {
    setBusy(a.id);
    setFailure(undefined);
    try {
      const reason = reasons[a.id]?.trim();
      // The run goes on once decided: read its events to the end, then show the session as stored.
      let status = startStatus(Date.now());
      onProgress?.(status);
      for await (const e of api.decide(a.id, { decision, ...(reason ? { reason } : {}) })) {
        status = nextStatus(status, e);
        onProgress?.(status);
        if (e.event === 'error') setFailure(e.data.message);
      }
    } catch (e) {
      setFailure(e instanceof Error ? e.message : String(e));
    }
    onProgress?.(undefined);
    setBusy(undefined);
    onDecided();
  };
  return (
    <section class="approvals" aria-label="Waiting for approval">
      {approvals.map((a) => (
        <div key={a.id} class="approval" data-approval={a.id} data-tool={a.tool}>
          <p><strong>{a.tool}</strong> needs your approval</p>
          <ul class="why">{a.asks.map((ask, i) => <li key={i}>{ask.reason}</li>)}</ul>
          {a.diff ? <DiffView diff={a.diff} /> : <pre class="args">{pretty(a.args)}</pre>}
          <div class="actions">
            <input
              aria-label="Reason (optional)" placeholder="Reason (optional; the model sees it when you deny)" value={reasons[a.id] ?? ''}
              onInput={(e) => setReasons({ ...reasons, [a.id]: e.currentTarget.value })}
            />
            <button type="button" class="primary approve" disabled={busy !== undefined} onClick={() => void decide(a, 'approve')}>Approve</button>
            <button type="button" class="deny" disabled={busy !== undefined} onClick={() => void decide(a, 'deny')}>Deny</button>
          </div>
          {a.expiresAt && <p class="hint">Expires {a.expiresAt.replace('T', ' ').slice(0, 16)} UTC; it is then denied.</p>}
        </div>
      ))}
      {failure && <p class="notice bad" role="alert">{failure}</p>}
    </section>
  );
}

/** Which kind of line of a unified diff this is, for its colour. */
function lineKind(line: string): 'add' | 'del' | 'hunk' | 'file' | 'context' {
  if (line.startsWith('+++') || line.startsWith('---')) return 'file';
  if (line.startsWith('+')) return 'add';
  if (line.startsWith('-')) return 'del';
  if (line.startsWith('@@')) return 'hunk';
  return 'context';
}

/** A unified diff, a line each, additions and removals coloured (and marked by their +/- for who cannot see colour). */
export function DiffView({ diff }: { diff: string }) {
  return (
    <pre class="diff" aria-label="What the call would change">
      {diff.split('\n').map((line, i) => <span key={i} class={`line ${lineKind(line)}`}>{line}{'\n'}</span>)}
    </pre>
  );
}
