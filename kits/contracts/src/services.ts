import type { ApprovalStore } from './approvals.ts';
import type { AuditLog } from './audit.ts';
import type { Database } from './database.ts';
import type { LongTermMemoryStore } from './memory.ts';
import type { RunRecordStore } from './runs.ts';
import type { Sandbox, SandboxAction } from './sandbox.ts';
import type { SessionStore } from './sessions.ts';

/** One scheduled task, as the scheduler shows it. */
export interface TaskInfo {
  name: string;
  agent: string;
  message: string;
  /** One line: `cron 0 8 * * 1-5 (Europe/Berlin)`, `every 5m`, `at 2026-12-01T08:00:00.000Z`. */
  schedule: string;
  cron?: string;
  every?: string;
  everyMs?: number;
  at?: string;
  timezone?: string;
  /** `new`: a new session per run; `task`: one session the task continues. */
  session: 'new' | 'task';
  /** The continuing session of a `session: 'task'` task, once it has run. */
  sessionId?: string;
  notify?: string;
  enabled: boolean;
  timeoutMs: number;
  overlap: 'skip' | 'queue';
  catchUp: 'none' | 'latest' | 'all';
  /** `config`: declared in oryx.config.ts; `runtime`: added with `oryx schedule add` or the REST API. */
  source: 'config' | 'runtime';
  /** The next slot (ISO), when enabled and there is one. */
  next?: string;
  last?: { slot: string; status: string; finishedAt?: string; errorCode?: string };
  createdAt?: string;
  updatedAt?: string;
}

/** A `task_executions` row, as stored: one slot of a task. */
export interface ExecutionRow {
  id: number; task: string; slot: string; status: 'ok' | 'error' | 'skipped' | 'timeout' | 'missed' | 'waiting' | 'running' | 'queued';
  fired_by: 'schedule' | 'catch-up' | 'manual'; owner: string | null;
  heartbeat_at: string | null; started_at: string | null; finished_at: string | null; duration_ms: number | null;
  session_id: string | null; run_id: string | null; stop_reason: string | null; answer: string | null; error_code: string | null;
  error: string | null; iterations: number | null; input_tokens: number | null; output_tokens: number | null;
  notify_status: string | null; notification_id: number | null;
}

/**
 * Scheduled runs (the scheduler plugin): what its commands and the web plugin's task routes use.
 *
 * @example
 * const tasks = await kernel.service('scheduler').list();
 */
export interface SchedulerService {
  list(): Promise<TaskInfo[]>;
  get(name: string): Promise<TaskInfo>;
  /** A runtime task; the input is checked as `scheduler({ tasks })` entries are. */
  add(input: unknown): Promise<TaskInfo>;
  remove(name: string): Promise<void>;
  setEnabled(name: string, enabled: boolean): Promise<TaskInfo>;
  /** Runs a task's slot now (`fired_by: manual`), whatever its schedule. */
  run(name: string): Promise<ExecutionRow>;
  executions(name: string, options?: { limit?: number; status?: string }): Promise<ExecutionRow[]>;
  /** Runs going on now. */
  readonly inFlight: number;
}

/** One SMTP channel, as the notify plugin shows it (never its password). */
export interface ChannelInfo {
  name: string;
  host: string;
  port: number;
  secure: boolean;
  requireTLS: boolean;
  user?: string;
  /** `env SMTP_PASS`, `set in oryx.config.ts` or `none`. */
  password: string;
  from: string;
  to: string[];
  source: 'config' | 'runtime';
}

/** A mail to send through a channel. */
export interface NotifyMessage {
  channel: string;
  subject: string;
  body: string;
  /** Who sends, for the audit trail and the row: `scheduler task nightly`, `tool notify`, `oryx notify test`. */
  origin?: string;
  sessionId?: string;
  runId?: string;
  /** The sandbox check to use (a tool passes its own, which knows the run). */
  enforce?: (action: SandboxAction) => Promise<void>;
  /** Stops the retries. */
  signal?: AbortSignal;
  /** Send to these addresses instead of the channel's `to` (a door answering the person who wrote). */
  to?: string[];
  /** An HTML alternative of `body` (the mail is then multipart/alternative). */
  html?: string;
  /** The Message-ID to give the mail (`<id@host>`), so a door knows the id of the reply it sent; default: one the transport makes. */
  messageId?: string;
  /** Threading: the Message-ID this mail answers (RFC 5322 In-Reply-To). */
  inReplyTo?: string;
  /** Threading: the References chain, oldest first, the answered mail's own id last. */
  references?: string[];
  /** More headers (`Auto-Submitted: auto-replied`); the ones the transport sets (From, To, Subject, Message-ID, …) are refused. */
  headers?: Record<string, string>;
}

/** How a send ended (a `notifications` row). */
export interface SendResult {
  id: number;
  status: 'sent' | 'failed' | 'denied';
  attempts: number;
  channel: string;
  to: string[];
  messageId?: string;
  /** Recipients the server refused while it accepted others. */
  rejected?: string[];
  error?: { code: string; message: string; hint: string };
}

/**
 * SMTP notifications (the notify plugin): what its commands, its tool and the scheduler use.
 *
 * @example
 * const r = await kernel.service('notify').send({ channel: 'ops', subject: 'Done', body: 'All green.' });
 */
export interface NotifyService {
  channels(): Promise<ChannelInfo[]>;
  hasChannel(name: string): Promise<boolean>;
  /** A runtime channel; the input is checked as `notify({ channels })` entries are. */
  add(input: unknown): Promise<ChannelInfo>;
  remove(name: string): Promise<void>;
  send(message: NotifyMessage): Promise<SendResult>;
  /** Sends a test mail through the channel. */
  test(name: string): Promise<SendResult>;
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
/**
 * An MCP endpoint speaking Streamable HTTP (the mcp-server plugin), which the web plugin mounts
 * at {@link McpHttpEndpoint.path} behind its token, Host and Origin checks: every request
 * to that path is handed over as a web-standard `Request`, with the user it acts for.
 *
 * @example
 * app.all(endpoint.path, (c) => endpoint.handle(c.req.raw, { user: principalOf(c) }));
 */
export interface McpHttpEndpoint {
  /** Where it is mounted: `/mcp`. */
  readonly path: string;
  handle(request: Request, context: { user?: string }): Promise<Response>;
}

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
  /** MCP over Streamable HTTP, provided by the mcp-server plugin (mounted by the web plugin). */
  mcpHttp: McpHttpEndpoint;
}

/** The name of a service (`database`, `sessions`, `sandbox`, …). */
export type ServiceName = keyof Services & string;
