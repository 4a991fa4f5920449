import type { Approval, ApprovalDecision, ApprovalStatus, ApprovalStore, Database, Migration } from '@oryxos/contracts';
import { approvalsError } from './errors.ts';

/** The owner the `approvals` table's migrations are recorded under (the same on SQLite and PostgreSQL, and as before this plugin). */
export const OWNER = 'approvals';

/** The `approvals` table: one row per tool call that waited for a person. Plain SQL both engines speak. */
export const MIGRATIONS: readonly Migration[] = Object.freeze([
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
  {
    // An approval is bound to its call (the tool, the arguments' hash, the actions) and used once.
    version: 2,
    name: 'approvals bound to their call',
    statements: [
      'ALTER TABLE approvals ADD COLUMN args_hash TEXT',
      'ALTER TABLE approvals ADD COLUMN used_at TEXT',
      'CREATE INDEX approvals_by_call ON approvals (session_id, tool_call_id, requested_at)',
    ],
  },
]);

interface ApprovalRow {
  id: string; run_id: string; session_id: string; agent: string; tool: string; tool_call_id: string; args: string; actions: string;
  requested_at: string; status: string; decided_by: string | null; decided_at: string | null; reason: string | null;
  expires_at: string | null; args_hash: string | null; used_at: string | null;
}

/** `used` is stored as `approved` with `used_at` set (the table's CHECK predates it, and a used approval was approved). */
const statusOf = (r: ApprovalRow): ApprovalStatus => (r.status === 'approved' && r.used_at ? 'used' : r.status as ApprovalStatus);

const toApproval = (r: ApprovalRow): Approval => ({
  id: r.id, runId: r.run_id, sessionId: r.session_id, agent: r.agent, tool: r.tool, toolCallId: r.tool_call_id,
  args: JSON.parse(r.args) as Approval['args'], argsHash: r.args_hash ?? '', asks: JSON.parse(r.actions) as Approval['asks'],
  requestedAt: r.requested_at, status: statusOf(r),
  ...(r.decided_by ? { decidedBy: r.decided_by } : {}), ...(r.decided_at ? { decidedAt: r.decided_at } : {}),
  ...(r.reason ? { reason: r.reason } : {}), ...(r.expires_at ? { expiresAt: r.expires_at } : {}), ...(r.used_at ? { usedAt: r.used_at } : {}),
});

const STATUS_OF = { approve: 'approved', deny: 'denied', expire: 'expired' } as const;

/** The SQL that selects approvals by status, `used` included (an approved row with `used_at`). */
function statusWhere(status: ApprovalStatus): { sql: string; params: string[] } {
  if (status === 'used') return { sql: "status = 'approved' AND used_at IS NOT NULL", params: [] };
  if (status === 'approved') return { sql: "status = 'approved' AND used_at IS NULL", params: [] };
  return { sql: 'status = ?', params: [status] };
}

/**
 * The `approvals` service on the `database` service: rows in the `approvals` table, decided by
 * a compare-and-set on `status = 'pending'` so two deciders (two processes, the timeout and a
 * person) can never both win, and used by a compare-and-set on `used_at` so one approval lets
 * one call through, once.
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
        `INSERT INTO approvals (id, run_id, session_id, agent, tool, tool_call_id, args, args_hash, actions, requested_at, status, expires_at)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?)`,
        [
          approval.id, request.runId, request.sessionId, request.agent, request.tool, request.toolCallId, JSON.stringify(request.args),
          request.argsHash, JSON.stringify(request.asks), approval.requestedAt, request.expiresAt ?? null,
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
    async list({ status, sessionId, runId, toolCallId, limit = 50 } = {}) {
      const where: string[] = [];
      const params: (string | number)[] = [];
      if (status) { const s = statusWhere(status); where.push(s.sql); params.push(...s.params); }
      if (sessionId) { where.push('session_id = ?'); params.push(sessionId); }
      if (runId) { where.push('run_id = ?'); params.push(runId); }
      if (toolCallId) { where.push('tool_call_id = ?'); params.push(toolCallId); }
      const rows = await db().query<ApprovalRow>(
        `SELECT * FROM approvals${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY requested_at DESC, id DESC LIMIT ?`,
        [...params, limit],
      );
      return rows.map(toApproval);
    },
    async decide(id, decision: ApprovalDecision) {
      const now = new Date().toISOString();
      // A person's decision counts only before the deadline; the timeout's only after it is set.
      const { rowsAffected } = await db().execute(
        `UPDATE approvals SET status = ?, decided_by = ?, decided_at = ?, reason = ?
          WHERE id = ? AND status = 'pending'${decision.decision === 'expire' ? '' : ' AND (expires_at IS NULL OR expires_at > ?)'}`,
        [STATUS_OF[decision.decision], decision.by, now, decision.reason ?? null, id, ...(decision.decision === 'expire' ? [] : [now])],
      );
      const row = await get(id);
      if (!row) throw approvalsError('ORYX_E_APPROVAL_NOT_FOUND', `No approval "${id}"`, { data: { id } });
      if (rowsAffected === 1) return row;
      if (row.status === 'pending') {
        // Past its deadline: expire it now (unless another process just did), then refuse.
        await store.decide(id, { decision: 'expire', by: 'timeout', reason: 'nobody decided before it expired' }).catch(() => {});
        throw approvalsError('ORYX_E_APPROVAL_EXPIRED', `Approval ${id} expired at ${row.expiresAt}; the run went on with a denial`, { data: { id, expiresAt: row.expiresAt } });
      }
      const code = row.status === 'expired' ? 'ORYX_E_APPROVAL_EXPIRED' : 'ORYX_E_APPROVAL_DECIDED';
      throw approvalsError(code, `Approval ${id} is already ${row.status === 'used' ? 'approved and used' : row.status}${row.decidedBy ? ` (by ${row.decidedBy}${row.decidedAt ? ` at ${row.decidedAt}` : ''})` : ''}`, {
        data: { id, status: row.status, decidedBy: row.decidedBy },
      });
    },
    async use(id) {
      const { rowsAffected } = await db().execute("UPDATE approvals SET used_at = ? WHERE id = ? AND status = 'approved' AND used_at IS NULL", [new Date().toISOString(), id]);
      return rowsAffected === 1;
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
