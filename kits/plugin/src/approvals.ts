import type { SandboxAction } from '@oryxos/kernel';

/** Where an approval stands: waiting for a person, or decided (`expired`: nobody decided in time). */
export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired';

/** One reason a tool call waits for a person: a sandbox action that asks, or a per-tool rule (no action). */
export interface ApprovalAsk {
  action?: SandboxAction;
  /** Why it asks, in one line (the sandbox's reason, or the rule that asks). */
  reason: string;
}

/** What the kernel stores when a tool call needs a person's approval. */
export interface ApprovalRequest {
  runId: string;
  sessionId: string;
  agent: string;
  tool: string;
  toolCallId: string;
  args: Record<string, unknown>;
  /** What asks; the approval covers exactly these actions. */
  asks: ApprovalAsk[];
  /** When a pending approval expires (ISO 8601); none: it waits until decided. */
  expiresAt?: string;
  /** What the kernel needs to resume the run (who it acts for, provider, model, …), as JSON. */
  resume?: Record<string, unknown>;
}

/** A stored approval. */
export interface Approval extends ApprovalRequest {
  id: string;
  status: ApprovalStatus;
  requestedAt: string;
  /** Who decided: `cli`, a token's identity, `timeout`. */
  decidedBy?: string;
  decidedAt?: string;
  /** The decider's reason (a denial's reaches the model). */
  reason?: string;
}

/** A decision on a pending approval. `expire` is the timeout's (decided by `timeout`). */
export interface ApprovalDecision {
  decision: 'approve' | 'deny' | 'expire';
  by: string;
  reason?: string;
}

/**
 * The `approvals` service (provided by the sqlite and postgres plugins): pending approvals as
 * rows, so a run waiting for a person survives a restart, and any process on the database can
 * decide. Deciding is a compare-and-set from `pending`: of two deciders one wins, the other
 * gets ORYX_E_APPROVAL_DECIDED; a decision after `expiresAt` gets ORYX_E_APPROVAL_EXPIRED.
 *
 * @example
 * const [first] = await kernel.service('approvals').list({ status: 'pending' });
 * await kernel.service('approvals').decide(first.id, { decision: 'approve', by: 'cli' });
 */
export interface ApprovalStore {
  request(request: ApprovalRequest): Promise<Approval>;
  get(id: string): Promise<Approval | undefined>;
  /** Approvals whose id starts with `prefix` (at most `limit`), for short ids. */
  withPrefix(prefix: string, limit: number): Promise<Approval[]>;
  /** Newest first. */
  list(query?: { status?: ApprovalStatus; sessionId?: string; runId?: string; limit?: number }): Promise<Approval[]>;
  /** Decides a pending approval (atomically) and returns it as decided. */
  decide(id: string, decision: ApprovalDecision): Promise<Approval>;
  /** Marks every pending approval whose `expiresAt` is past `now` as expired (by `timeout`); returns them. */
  expireDue(now?: Date): Promise<Approval[]>;
}

declare module '@oryxos/kernel' {
  interface Services {
    /** Approvals waiting for a person, provided by the session store plugin (sqlite, postgres). */
    approvals: ApprovalStore;
  }
}
