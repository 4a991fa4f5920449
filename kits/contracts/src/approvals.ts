import type { SandboxAction } from './sandbox.ts';

/** Where an approval stands: waiting for a person, decided (`expired`: nobody decided in time), or `used` by the call it was for. */
export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired' | 'used';

/** One reason a tool call waits for a person: a sandbox action that asks, or a per-tool rule (no action). */
export interface ApprovalAsk {
  action?: SandboxAction;
  /** Why it asks, in one line (the sandbox's reason, or the rule that asks). */
  reason: string;
}

/**
 * A tool call that needs a person's approval, bound to the call itself: an approval covers
 * exactly this tool, these arguments (their hash) and these actions, once.
 */
export interface ApprovalRequest {
  runId: string;
  sessionId: string;
  agent: string;
  tool: string;
  toolCallId: string;
  args: Record<string, unknown>;
  /** SHA-256 (hex) of the canonical JSON of `args`. */
  argsHash: string;
  /** What asks; the approval covers exactly these actions. */
  asks: ApprovalAsk[];
  /** When a pending approval expires (ISO 8601); none: it waits until decided. */
  expiresAt?: string;
}

/** A stored approval. */
export interface Approval extends ApprovalRequest {
  id: string;
  status: ApprovalStatus;
  requestedAt: string;
  /** Who decided: `cli`, a web token's identity, `timeout`, `new-message`. */
  decidedBy?: string;
  decidedAt?: string;
  /** The decider's reason (a denial's reaches the model). */
  reason?: string;
  /** When the approved call ran with it. */
  usedAt?: string;
}

/** A decision on a pending approval. `expire` is the timeout's (decided by `timeout`). */
export interface ApprovalDecision {
  decision: 'approve' | 'deny' | 'expire';
  by: string;
  reason?: string;
}

/**
 * The `approvals` service (the approvals plugin provides it): approvals as rows, so a run
 * waiting for a person survives a restart and any process on the database can decide.
 * Deciding is a compare-and-set from `pending`: of two deciders one wins, the other gets
 * ORYX_E_APPROVAL_DECIDED; a decision after `expiresAt` gets ORYX_E_APPROVAL_EXPIRED.
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
  list(query?: { status?: ApprovalStatus; sessionId?: string; runId?: string; toolCallId?: string; limit?: number }): Promise<Approval[]>;
  /** Decides a pending approval (atomically) and returns it as decided. */
  decide(id: string, decision: ApprovalDecision): Promise<Approval>;
  /**
   * Uses an approved approval for the call it was for (compare-and-set from `approved` to
   * `used`): true once, false for every later try.
   */
  use(id: string): Promise<boolean>;
  /** Marks every pending approval whose `expiresAt` is past `now` as expired (by `timeout`); returns them. */
  expireDue(now?: Date): Promise<Approval[]>;
}

/** What a run that stopped for an approval says about it. */
export interface ApprovalRef {
  id: string;
  tool: string;
  /** The call and why it asks, in one line. */
  summary: string;
  expiresAt?: string;
}
