// The approvals store is moving to @oryxos/plugin-approvals; it is here until then so both store
// plugins keep providing it without one depending on the other.
import { STAGE, type Database, type Migration, type PluginContext } from '@oryxos/kernel';
import type { Approval, ApprovalDecision, ApprovalStatus, ApprovalStore } from '@oryxos/kernel';
import { storeError as sqliteError } from './errors.ts';

/** The owner the `approvals` table's migrations are recorded under (the same on SQLite and PostgreSQL). */
export const APPROVALS_OWNER = 'approvals';

/** The `approvals` table: one row per tool call that waited for a person. Plain SQL both engines speak. */
export const APPROVAL_MIGRATIONS: readonly Migration[] = Object.freeze([
  {
    version: 1,
    name: 'approvals',
    statements: [
      `CREATE TABLE approvals (
        id TEXT PRIMARY KEY,
        run_id TEXT NOT NULL,
        session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        agent TEXT NOT NULL,
        tool TEXT NOT NULL,
        tool_call_id TEXT NOT NULL,
        args TEXT NOT NULL,
        actions TEXT NOT NULL,
        requested_at TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'expired')),
        decided_by TEXT,
        decided_at TEXT,
        reason TEXT,
        expires_at TEXT,
        resume TEXT
      )`,
      'CREATE INDEX approvals_by_status ON approvals (status, requested_at, id)',
      'CREATE INDEX approvals_by_session ON approvals (session_id, status, requested_at, id)',
    ],
  },
]);

interface ApprovalRow {
  id: string; run_id: string; session_id: string; agent: string; tool: string; tool_call_id: string; args: string; actions: string;
  requested_at: string; status: string; decided_by: string | null; decided_at: string | null; reason: string | null;
  expires_at: string | null; resume: string | null;
}

const toApproval = (r: ApprovalRow): Approval => ({
  id: r.id, runId: r.run_id, sessionId: r.session_id, agent: r.agent, tool: r.tool, toolCallId: r.tool_call_id,
  args: JSON.parse(r.args) as Approval['args'], asks: JSON.parse(r.actions) as Approval['asks'],
  requestedAt: r.requested_at, status: r.status as ApprovalStatus,
  ...(r.decided_by ? { decidedBy: r.decided_by } : {}), ...(r.decided_at ? { decidedAt: r.decided_at } : {}),
  ...(r.reason ? { reason: r.reason } : {}), ...(r.expires_at ? { expiresAt: r.expires_at } : {}),
  ...(r.resume ? { resume: JSON.parse(r.resume) as Record<string, unknown> } : {}),
});

const STATUS_OF = { approve: 'approved', deny: 'denied', expire: 'expired' } as const;

/**
 * The `approvals` service on a database: rows in the `approvals` table, decided by a
 * compare-and-set on `status = 'pending'` so two deciders (two processes, the scheduler's
 * timeout and a person) can never both win.
 */
export function approvalStore(db: () => Database): ApprovalStore {
  const get = async (id: string) => {
    const [row] = await db().query<ApprovalRow>('SELECT * FROM approvals WHERE id = ?', [id]);
    return row && toApproval(row);
  };
  const store: ApprovalStore = {
    async request(request) {
      const approval: Approval = { ...request, id: crypto.randomUUID(), status: 'pending', requestedAt: new Date().toISOString() };
      await db().execute(
        `INSERT INTO approvals (id, run_id, session_id, agent, tool, tool_call_id, args, actions, requested_at, status, expires_at, resume)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)`,
        [
          approval.id, request.runId, request.sessionId, request.agent, request.tool, request.toolCallId, JSON.stringify(request.args),
          JSON.stringify(request.asks), approval.requestedAt, request.expiresAt ?? null, request.resume ? JSON.stringify(request.resume) : null,
        ],
      );
      return approval;
    },
    get,
    async withPrefix(prefix, limit) {
      // Ids are UUIDs: anything else cannot match, and must not reach LIKE as a pattern.
      if (!/^[0-9a-f-]+$/i.test(prefix)) return [];
      const rows = await db().query<ApprovalRow>('SELECT * FROM approvals WHERE id LIKE ? ORDER BY requested_at DESC LIMIT ?', [`${prefix.toLowerCase()}%`, limit]);
      return rows.map(toApproval);
    },
    async list({ status, sessionId, runId, limit = 50 } = {}) {
      const where: string[] = [];
      const params: (string | number)[] = [];
      if (status) { where.push('status = ?'); params.push(status); }
      if (sessionId) { where.push('session_id = ?'); params.push(sessionId); }
      if (runId) { where.push('run_id = ?'); params.push(runId); }
      const rows = await db().query<ApprovalRow>(
        `SELECT * FROM approvals${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY requested_at DESC, id DESC LIMIT ?`,
        [...params, limit],
      );
      return rows.map(toApproval);
    },
    async decide(id, decision: ApprovalDecision) {
      const now = new Date().toISOString();
      const status = STATUS_OF[decision.decision];
      // A person's decision counts only before the deadline; the timeout's only after it is set.
      const { rowsAffected } = await db().execute(
        `UPDATE approvals SET status = ?, decided_by = ?, decided_at = ?, reason = ?
          WHERE id = ? AND status = 'pending'${decision.decision === 'expire' ? '' : ' AND (expires_at IS NULL OR expires_at > ?)'}`,
        [status, decision.by, now, decision.reason ?? null, id, ...(decision.decision === 'expire' ? [] : [now])],
      );
      const row = await get(id);
      if (!row) {
        throw sqliteError('ORYX_E_APPROVAL_NOT_FOUND', `No approval "${id}"`, { data: { id } });
      }
      if (rowsAffected === 1) return row;
      if (row.status === 'pending') {
        // Past its deadline: expire it now (unless another process just did), then refuse.
        await store.decide(id, { decision: 'expire', by: 'timeout', reason: 'nobody decided before it expired' }).catch(() => {});
        throw sqliteError('ORYX_E_APPROVAL_EXPIRED', `Approval ${id} expired at ${row.expiresAt}; the run went on with a denial`, { data: { id, expiresAt: row.expiresAt } });
      }
      const code = row.status === 'expired' ? 'ORYX_E_APPROVAL_EXPIRED' : 'ORYX_E_APPROVAL_DECIDED';
      throw sqliteError(code, `Approval ${id} is already ${row.status}${row.decidedBy ? ` (by ${row.decidedBy}${row.decidedAt ? ` at ${row.decidedAt}` : ''})` : ''}`, {
        data: { id, status: row.status, decidedBy: row.decidedBy },
      });
    },
    async expireDue(now = new Date()) {
      const due = await db().query<ApprovalRow>(
        "SELECT * FROM approvals WHERE status = 'pending' AND expires_at IS NOT NULL AND expires_at <= ? ORDER BY requested_at",
        [now.toISOString()],
      );
      const expired: Approval[] = [];
      for (const row of due) {
        try {
          expired.push(await store.decide(row.id, { decision: 'expire', by: 'timeout', reason: 'nobody decided before it expired' }));
        } catch {
          // Decided meanwhile by a person or another process's timeout: theirs stands.
        }
      }
      return expired;
    },
  };
  return store;
}

/**
 * Approvals on the store's database: migrates the `approvals` table at `init` (after the
 * store's own tables) and provides the `approvals` service. Shared by the sqlite and postgres plugins.
 */
export function attachApprovals(ctx: PluginContext, db: () => Database): ApprovalStore {
  ctx.hooks.init.tapPromise({ stage: STAGE.EARLY }, async () => {
    await db().migrate(APPROVALS_OWNER, APPROVAL_MIGRATIONS);
  });
  const store = approvalStore(db);
  ctx.provide('approvals', store);
  return store;
}
