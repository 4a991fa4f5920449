import type { ApprovalStore } from './approvals.ts';
import type { AuditLog } from './audit.ts';
import type { Database } from './database.ts';
import type { LongTermMemoryStore } from './memory.ts';
import type { RunRecordStore } from './runs.ts';
import type { Sandbox } from './sandbox.ts';
import type { SessionStore } from './sessions.ts';

/** What the scheduler offers other plugins (the web plugin's task routes). */
export interface SchedulerService {
  list(): Promise<unknown[]>;
  add(input: unknown): Promise<{ name: string }>;
  remove(name: string): Promise<void>;
  executions(name: string, options: { limit?: number; status?: string }): Promise<unknown[]>;
  /** Runs going on now. */
  readonly inFlight: number;
}

/** What the notify plugin offers other plugins (the scheduler mails results through it). */
export interface NotifyService {
  hasChannel(name: string): Promise<boolean>;
  send(message: { channel: string; subject: string; body: string; origin: string; sessionId?: string; runId?: string }):
    Promise<{ id?: number; status: 'sent' | 'failed' | 'denied'; error?: { code: string; message: string } }>;
}

/**
 * Named services plugins provide to each other, through `ctx.provide(name, value)` and
 * `ctx.service(name)`. A plugin adds its own by declaration merging:
 *
 * @example
 * declare module '@oryxos/contracts' {
 *   interface Services { notes: NotesStore }
 * }
 */
export interface Services {
  /** The session store: the kernel's in-memory one, or the sqlite or postgres plugin's. */
  sessions: SessionStore;
  /** The sandbox: the kernel's deny-all default, or the sandbox plugin's. */
  sandbox: Sandbox;
  /** SQL database, provided by the sqlite or postgres plugin (used by audit, approvals, scheduler, notify). */
  database: Database;
  /** Long-term memory, provided by the memory plugin (used by the web channel). */
  memory: LongTermMemoryStore;
  /** The audit trail, provided by the audit plugin. */
  audit: AuditLog;
  /** How every run started and ended, provided by the session store plugin (sqlite, postgres). */
  runRecords: RunRecordStore;
  /** Tool calls waiting for a person, provided by the approvals plugin. */
  approvals: ApprovalStore;
  /** Scheduled runs, provided by the scheduler plugin. */
  scheduler: SchedulerService;
  /** SMTP channels, provided by the notify plugin. */
  notify: NotifyService;
}

/** The name of a service (`database`, `sessions`, `sandbox`, …). */
export type ServiceName = keyof Services & string;
