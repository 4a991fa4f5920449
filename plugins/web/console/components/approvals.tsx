import { useState } from 'preact/hooks';
import { ApiError, type Api } from '../api.ts';
import { pretty } from '../format.ts';

/** A pending approval as `GET /api/approvals` lists it (what the console shows of it). */
export interface PendingApproval {
  id: string;
  tool: string;
  toolCallId: string;
  args: unknown;
  asks: { reason: string }[];
  requestedAt: string;
  expiresAt?: string;
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

/**
 * Tool calls of this session waiting for a person: what each would do and why it asks, with
 * Approve and Deny (and a reason the model gets with a denial). `onDecided` runs after a
 * decision the server accepted, or one another decider made first (409).
 */
export function ApprovalsPanel({ api, approvals, onDecided }: { api: Api; approvals: PendingApproval[]; onDecided(): void }) {
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
      for await (const e of api.decide(a.id, { decision, ...(reason ? { reason } : {}) })) {
        if (e.event === 'error') setFailure(e.data.message);
      }
    } catch (e) {
      setFailure(e instanceof Error ? e.message : String(e));
    }
    setBusy(undefined);
    onDecided();
  };
  return (
    <section class="approvals" aria-label="Waiting for approval">
      {approvals.map((a) => (
        <div key={a.id} class="approval" data-approval={a.id} data-tool={a.tool}>
          <p><strong>{a.tool}</strong> needs your approval</p>
          <ul class="why">{a.asks.map((ask, i) => <li key={i}>{ask.reason}</li>)}</ul>
          <pre class="args">{pretty(a.args)}</pre>
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
