import type { ChatRequest, JsonSchema, Message, Provider, ToolCall, ToolSpec, Usage, AssistantMessage, ChatResponse } from '@oryxos/provider-spec';

// The provider specification (messages, requests, responses, stream events) is its own package;
// re-exported here for plugins written against the kernel alone.
export type * from '@oryxos/provider-spec';

/** What a tool returns. A string returned by `execute` is shorthand for `{content, isError: false}`. */
export interface ToolResult {
  content: string;
  isError: boolean;
  /** The model may retry the same call (timeouts, transient server errors). */
  retryable?: boolean;
  /** Set when the sandbox or a `beforeTool` guard refused the call; the reason. */
  denied?: string;
  /** The length of the content before the kernel cut it to `max_tool_output_chars` (set only when it did). */
  fullChars?: number;
}

export type ToolSource = 'builtin' | 'mcp' | 'plugin';

/** A tool registered by a plugin. */
export interface Tool extends ToolSpec {
  source: ToolSource;
  /** The plugin that registered it (filled in by the kernel). */
  plugin?: string;
  /** Per-call time limit; the kernel default is 60 s. */
  timeoutMs?: number;
  /**
   * `false` for a tool that must run alone (it writes files, runs commands): the executor
   * never runs it at the same time as another call. Default `true`.
   */
  parallel?: boolean;
  /**
   * Validates arguments; return an error string to reject. When absent the kernel checks the
   * arguments against `inputSchema`.
   */
  validate?(args: Record<string, unknown>): string | undefined;
  /** Sandbox actions this call will perform; each is enforced before `execute` runs. */
  actions?(args: Record<string, unknown>, ctx: ToolContext): SandboxAction[] | Promise<SandboxAction[]>;
  /** `always`: every call waits for a person's approval first (see the kernel README, *Approvals*). */
  approval?: 'always';
  execute(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult | string>;
}

/** A plugin that discovers tools at run time (MCP servers). Listed when a prompt is built. */
export interface ToolProvider {
  name: string;
  list(ctx: { agent: AgentDefinition; signal?: AbortSignal }): Promise<Tool[]>;
  /** Health of each source (an MCP server), for `oryx tools` to show what is unavailable and why. */
  status?(): Promise<ToolSourceStatus[]>;
}

export interface ToolSourceStatus { name: string; ok: boolean; reason?: string; tools: number }

/** What a tool receives besides its arguments. */
export interface ToolContext {
  agent: AgentDefinition;
  sessionId: string;
  iteration: number;
  toolCallId: string;
  /**
   * Fires when the call's time is up or the run is aborted. Made when first read (a getter):
   * read it from the context itself, a `{ ...ctx }` copy does not carry it.
   */
  signal: AbortSignal;
  /** Enforces a sandbox action at the point of I/O; throws ORYX_E_SANDBOX_DENIED on denial. */
  enforce(action: SandboxAction): Promise<void>;
  /** Checks a whole process launch and returns how to start it; throws ORYX_E_SANDBOX_DENIED on denial. */
  launch(request: ExecRequest): Promise<ExecLaunch>;
  /** Another plugin's service, by name. */
  service<K extends keyof Services>(name: K): Services[K];
}

/** Events of a streamed model call: text deltas, assembled tool calls, then the whole response. */
/** How the kernel retries a failed model call (only errors marked `retryable`). */
/**
 * An LLM provider, registered under an explicit name that agents refer to.
 * Failures are thrown as OryxError with `retryable` set for rate limits, 5xx, timeouts and
 * resets, so the kernel can retry and audit each attempt.
 */

// ---------------------------------------------------------------------------------------
// Agents

export interface AgentSettings {
  /** Model calls per run (the graceful final call at the limit not counted). */
  max_iterations: number;
  /** Tool calls per run, over every iteration. */
  max_tool_calls: number;
  /** Tokens per run, input plus output, summed from provider usage. */
  max_tokens: number;
  /** Wall clock for the whole run (model calls, retries and tools), in ms. */
  max_duration_ms: number;
  /** Model call retries per run, over every call (a provider's own `maxRetries` still caps one call). */
  max_llm_retries: number;
  /** Repeated tool calls: `repeat` identical calls in a row, an A-B ping-pong over `pingpong` calls; `false` turns it off. */
  loop_detection: LoopDetectionSettings | false;
  /** Tool calls of one response run concurrently (tools with `parallel: false` alone). */
  parallel_tools: boolean;
  /** At most this many tool calls at a time. */
  max_parallel_tools: number;
  max_history_turns: number;
  /** Token budget for the whole prompt; older turns are dropped and long tool results cut to fit. */
  context_tokens: number;
  /** Tool calls of one model response that run; the rest get an error result. */
  max_tool_calls_per_step: number;
  /** Characters of one tool result the model sees (and the session stores); the rest is cut with a marker. */
  max_tool_output_chars: number;
  /** Levels of sub-agents below this run (`agents:`); at 0 the `agent__*` tools are not offered. */
  max_agent_depth: number;
  /**
   * A new message on a session whose run waits for an approval: `refuse` it
   * (ORYX_E_APPROVAL_WAITING, naming the approval), or `deny` the approval and go on.
   */
  pending_approval: 'refuse' | 'deny';
}

/** When the loop guard steps in ({@link AgentSettings.loop_detection}). */
export interface LoopDetectionSettings {
  /** The same tool with the same arguments this many times in a row. */
  repeat: number;
  /** A-B-A-B over this many calls. */
  pingpong: number;
}

/** An agent loaded from `.oryxos/agents/<name>/AGENT.md`. */
export interface AgentDefinition {
  name: string;
  description: string;
  provider?: string;
  model?: string;
  /** Allow-list of tool names; `*` globs (`filesystem__*`). Empty = no tools. */
  tools: string[];
  skills: SkillRef[];
  /** Sub-agents (`agents:` frontmatter), each offered as the tool `agent__<name>`; checked at load (known, no cycle). */
  agents: AgentRef[];
  settings: AgentSettings;
  /** The raw `sandbox:` frontmatter, interpreted by the sandbox plugin. */
  sandbox?: unknown;
  /** Tools whose every call waits for a person's approval (`approve:` frontmatter); it can only add to the tools' own rules. */
  approve?: string[];
  /** The body of AGENT.md: the system prompt. */
  instructions: string;
  /** Bootstrap files found (AGENTS.md, SOUL.md, USER.md), in order. */
  bootstrap: { name: string; path: string; content: string }[];
  dir: string;
  file: string;
  /** Frontmatter keys the kernel does not know, for plugins. */
  extra: Record<string, unknown>;
}

export interface SkillRef { name: string; description: string; path: string }

/** A sub-agent an agent may call: its name, its frontmatter `description` and its AGENT.md. */
export interface AgentRef { name: string; description: string; file: string }

// ---------------------------------------------------------------------------------------
// Prompt

export interface PromptSection { id: string; title?: string; content: string }

/** What the prompt builder put in and what it cut, in characters. Never silent. */
export interface PromptReport {
  injected: { section: string; chars: number }[];
  cut: { section: string; chars: number; reason: string }[];
  estimatedTokens: number;
}

/**
 * The four sections of a prompt, in order. `beforePrompt` taps rewrite it: memory adds to
 * `memory`, a clock or policy plugin adds to `system`.
 */
export interface Prompt {
  system: PromptSection[];
  memory: PromptSection[];
  history: Message[];
  tools: ToolSpec[];
  report: PromptReport;
}

// ---------------------------------------------------------------------------------------
// Sessions

export interface SessionInfo {
  id: string;
  agent: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  messageCount: number;
  /** The session of the run that started this one as a sub-agent (`agent__<name>`), when there is one. */
  parentSessionId?: string;
}

/** A message as stored, with its position in the session. */
export interface StoredMessage { seq: number; message: Message; createdAt: string }

export interface Page<T> { items: T[]; nextCursor?: string }

/**
 * The session store service (`kernel.service('sessions')`). The kernel ships an in-memory
 * one; the sqlite plugin provides a durable one.
 */
export interface SessionStore {
  create(input: { agent: string; title?: string; id?: string; parentSessionId?: string }): Promise<SessionInfo>;
  get(id: string): Promise<SessionInfo | undefined>;
  /** Newest first; `parentSessionId` lists the sub-agent sessions a session started. */
  list(query?: { agent?: string; parentSessionId?: string; limit?: number; cursor?: string }): Promise<Page<SessionInfo>>;
  /** The last `limit` messages (all when omitted), oldest first. */
  messages(id: string, query?: { limit?: number }): Promise<StoredMessage[]>;
  /** The messages of the last `turns` user turns, oldest first. */
  history(id: string, turns: number): Promise<StoredMessage[]>;
  /** Appends and commits, in order. */
  append(id: string, messages: Message[]): Promise<void>;
  delete(id: string): Promise<boolean>;
  /**
   * Optional exclusive lock on a session across processes. Returns the release function.
   * The kernel already serializes runs on one session inside a process.
   */
  lock?(id: string, signal?: AbortSignal): Promise<() => Promise<void>>;
}

// ---------------------------------------------------------------------------------------
// Sandbox

export type SandboxAction =
  | { kind: 'file'; op: 'read' | 'write'; path: string }
  | ExecAction
  | { kind: 'http'; url: string; method: string }
  | { kind: 'smtp'; host: string; port: number };

/**
 * Starting a process, checked as a whole: the program, its arguments, the folder it runs in
 * and every environment variable its launcher sets. A sandbox that checked only the program
 * and arguments would let `GIT_CONFIG_*` or `LD_PRELOAD` turn an allowed `git status` into
 * anything.
 */
export interface ExecAction {
  kind: 'exec';
  /** A name looked up on PATH (`git`) or a path (relative to `cwd`). */
  command: string;
  args: string[];
  /** The working folder, absolute or relative to the project folder. Default: the project folder. */
  cwd?: string;
  /** Variables the launcher sets on top of the minimal environment; each must be allowed. */
  env?: Record<string, string>;
}

/** A process a plugin wants to start: what {@link Sandbox.launch} checks. */
export type ExecRequest = Omit<ExecAction, 'kind'>;

/**
 * How to start a process the sandbox allowed. Spawn `file` with `args`, `cwd` and exactly
 * `env` (no inherited environment), without a shell; call `started(pid)` once it runs and
 * `done()` once it has ended. When `confined`, `file` is the confinement program (bubblewrap)
 * and `program` runs inside it.
 */
export interface ExecLaunch {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** The program the sandbox checked, as an absolute path. */
  program: string;
  /** Whether it runs under an OS confinement built from the policy. */
  confined: boolean;
  /** Tells the sandbox the process id, so what the process does (proxied connections) is audited with it. */
  started(pid: number | undefined): void;
  /** Releases what the launch holds (the proxy socket); safe to call twice. */
  done(): Promise<void>;
}

/**
 * The sandbox's answer: allowed, denied, or denied until a person approves it (`ask`; the
 * reason says why it asks). An action the context's `approved` covers is allowed instead.
 */
export type SandboxDecision = { allow: true } | { allow: false; reason: string; ask?: boolean };
export type LaunchDecision = { allow: true; launch: ExecLaunch } | { allow: false; reason: string; ask?: boolean };

/** Who asks the sandbox: the agent (its `sandbox:` narrows the policy), the run and what in it. */
export interface SandboxContext {
  agent?: AgentDefinition;
  run?: RunContext;
  toolCallId?: string;
  /** What asks, for the audit trail: `tool shell`, `mcp server filesystem`, `scheduler task nightly`. */
  origin?: string;
  /**
   * The actions a person approved for the tool call asking: an action that would `ask` and is
   * one of them (as the sandbox resolves it: the same real path, program, URL) is allowed.
   */
  approvedActions?: SandboxAction[];
}

/**
 * The sandbox service. With no sandbox plugin, the kernel's default denies everything.
 * A stronger implementation (container, microVM) replaces the plugin without touching callers.
 * Plugins reach it through the kernel's `enforceAction` and `prepareExec`, which also audit
 * every denial.
 */
export interface Sandbox {
  enforce(action: SandboxAction, ctx?: SandboxContext): Promise<SandboxDecision>;
  /**
   * Checks a whole process launch and returns how to start it (confined by the policy, with
   * only the environment the policy allows). A sandbox that cannot start processes denies.
   */
  launch(request: ExecRequest, ctx?: SandboxContext): Promise<LaunchDecision>;
  /**
   * Adds files the sandbox must never let an agent write (a plugin's own control files, such
   * as a servers file outside the workspace). It can only narrow the policy.
   */
  protect?(path: string, why: string): void;
}

/** One sandbox decision worth keeping: every denial, and every connection a confined process makes. */
export interface SandboxEvent {
  /** `ask`: a tool call waits for a person; `allow`/`deny` after it also say who decided (`origin`). */
  decision: 'allow' | 'deny' | 'ask';
  /** The action kind, or `connect` for a connection through the confinement proxy. */
  kind: SandboxAction['kind'] | 'connect' | 'tool';
  /** What was asked for: a path, a command line, a URL, host:port. */
  target: string;
  reason?: string;
  origin?: string;
  agent?: string;
  sessionId?: string;
  runId?: string;
  toolCallId?: string;
  /** The process a confined connection came from. */
  pid?: number;
  /** Its command line. */
  process?: string;
}

/** The audit service (the audit plugin): decisions that are not tool calls land here too. */
export interface AuditLog {
  sandboxEvent(event: SandboxEvent): Promise<void>;
}

// ---------------------------------------------------------------------------------------
// Services (extend by declaration merging)

/**
 * Named services plugins provide to each other. A plugin adds its own by declaration merging:
 *
 * @example
 * declare module '@oryxos/kernel' {
 *   interface Services { audit: AuditStore }
 * }
 */
export interface Services {
  sessions: SessionStore;
  sandbox: Sandbox;
  /** SQL database, provided by the sqlite plugin (used by audit, scheduler, notify). */
  database: Database;
  /** Long-term memory, provided by the memory plugin (used by the web channel). */
  memory: LongTermMemoryStore;
  /** The audit trail, provided by the audit plugin (sandbox denials and confined connections). */
  audit: AuditLog;
  /** How every run ended, provided by the session store plugin (sqlite, postgres). */
  runRecords: RunRecordStore;
  /** Tool calls waiting for a person, provided by the session store plugin (sqlite, postgres). */
  approvals: ApprovalStore;
}

// ---------------------------------------------------------------------------------------
// Approvals

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
  /** What the kernel needs to resume the run (who it acts for, provider, model), as JSON. */
  resume?: Record<string, unknown>;
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
}

/** A decision on a pending approval. `expire` is the timeout's (decided by `timeout`). */
export interface ApprovalDecision {
  decision: 'approve' | 'deny' | 'expire';
  by: string;
  reason?: string;
}

/**
 * The `approvals` service (the sqlite and postgres plugins provide it): pending approvals as
 * rows, so a run waiting for a person survives a restart, and any process on the database can
 * decide. Deciding is a compare-and-set from `pending`: of two deciders one wins, the other gets
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
  list(query?: { status?: ApprovalStatus; sessionId?: string; runId?: string; limit?: number }): Promise<Approval[]>;
  /** Decides a pending approval (atomically) and returns it as decided. */
  decide(id: string, decision: ApprovalDecision): Promise<Approval>;
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

/** One run as stored when it ended (every run: answered, stopped, aborted or failed). */
export interface RunRecord {
  runId: string;
  sessionId: string;
  agent: string;
  /** The run that started this one (a sub-agent's parent), when there is one. */
  parentRunId?: string;
  startedAt: string;
  finishedAt: string;
  stopReason: StopReason;
  /** Why it stopped short, in one line (limit, budget, loop, aborted). */
  notice?: string;
  iterations: number;
  toolCalls: number;
  inputTokens: number;
  outputTokens: number;
  retries: number;
  durationMs: number;
  errorCode?: string;
}

/** The `runRecords` service: the runs of a session, or the latest runs, newest first. */
export interface RunRecordStore {
  list(query?: { sessionId?: string; limit?: number }): Promise<RunRecord[]>;
}

// ---------------------------------------------------------------------------------------
// Database

export type SqlValue = string | number | bigint | boolean | null | Uint8Array;
export type SqlParams = SqlValue[] | Record<string, SqlValue>;

/** The SQL dialect a database service speaks. */
export type SqlDialect = 'sqlite' | 'postgres';

/**
 * One step of a plugin's schema. Versions only grow, per owner; a shipped migration is never
 * edited. The statements are one list for every dialect, or one list per dialect.
 *
 * @example
 * const MIGRATIONS: Migration[] = [
 *   { version: 1, name: 'notes', statements: ['CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT NOT NULL)'] },
 * ];
 */
export interface Migration {
  version: number;
  name: string;
  statements: readonly string[] | Partial<Record<SqlDialect, readonly string[]>>;
}

/** What a transaction callback gets: the database without `transaction` and `migrate`. */
export type DatabaseTx = Omit<Database, 'transaction' | 'migrate'>;

/**
 * The SQL database service. The same SQL runs on the embedded libsql file and on a libsql
 * server; every method is async so every driver fits. Each plugin owns its tables and
 * registers their migrations with {@link Database.migrate} from its `init` tap.
 */
export interface Database {
  /** The URL it was opened with (secrets removed). */
  readonly url: string;
  readonly dialect: SqlDialect;
  execute(sql: string, params?: SqlParams): Promise<{ rowsAffected: number; lastInsertRowid?: number | bigint }>;
  query<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T[]>;
  /** Runs `fn` in one transaction: all of it commits or none of it does. */
  transaction<T>(fn: (tx: DatabaseTx) => Promise<T>): Promise<T>;
  /**
   * Applies `owner`'s pending migrations in version order, in one transaction, recorded in
   * `schema_migrations` under the owner's name (a plugin passes its own name). A database that
   * holds a newer version for the owner than the code knows is refused, untouched. Returns
   * the versions applied.
   *
   * @example
   * kernel.hooks.init.tapPromise('notes', async () => { await kernel.service('database').migrate('notes', MIGRATIONS); });
   */
  migrate(owner: string, migrations: readonly Migration[]): Promise<number[]>;
}

// ---------------------------------------------------------------------------------------
// Long-term memory

export interface MemoryEntry { date: string; text: string }
export interface MemoryZones { path: string; core: MemoryEntry[]; archive: MemoryEntry[] }

/**
 * Long-term memory behind an interface, so a store other than MEMORY.md can replace it.
 */
export interface LongTermMemoryStore {
  read(agent: string): Promise<MemoryZones>;
  save(agent: string, text: string, zone?: 'core' | 'archive'): Promise<MemoryEntry>;
  recall(agent: string, query: string, limit?: number): Promise<(MemoryEntry & { score: number })[]>;
}

// ---------------------------------------------------------------------------------------
// Runs

/**
 * How a run ended: `final` (an answer without tool calls), `limit` (max_iterations), `budget`
 * (another limit of the run budget), `loop` (the loop guard stopped a repeating run),
 * `aborted` (the signal fired), `error`, or `approval` (a tool call waits for a person:
 * `kernel.runs.resume(id)` goes on once it is decided).
 */
export type StopReason = 'final' | 'limit' | 'budget' | 'loop' | 'error' | 'aborted' | 'approval';

/** The limits of one run's budget, as named in AGENT.md `settings:`. */
export type BudgetLimit = 'max_iterations' | 'max_tool_calls' | 'max_tokens' | 'max_duration_ms' | 'max_llm_retries';

/** What a run used of its budget. */
export interface BudgetUsed {
  /** Input plus output tokens, from provider usage. */
  tokens: number;
  toolCalls: number;
  /** Model call retries. */
  retries: number;
  /** Wall clock since the run started. */
  ms: number;
}

/** Events a run emits as it goes, for streaming front ends (CLI, SSE). */
export type RunEvent =
  | { type: 'iteration'; iteration: number }
  /** What the prompt of this iteration holds and what was cut to fit. */
  | { type: 'prompt'; report: PromptReport }
  | { type: 'token'; text: string }
  | { type: 'assistant'; message: AssistantMessage }
  | { type: 'tool_call'; call: ToolCall }
  | { type: 'tool_result'; call: ToolCall; result: ToolResult }
  | { type: 'retry'; attempt: number; delayMs: number; error: { code: string; message: string } }
  /** The run is stopping short of an answer (limit, budget, loop): why, before the final tool-less call. */
  | { type: 'stopping'; reason: 'limit' | 'budget' | 'loop'; notice: string }
  /** A tool call waits for a person: the run stops after this (stop reason `approval`). */
  | { type: 'approval_required'; approval: ApprovalRef & { args: Record<string, unknown>; reasons: string[] } };

export interface RunInput {
  agent: string;
  /** An existing session id; a new session is created when omitted. */
  session?: string;
  message: string;
  /**
   * Who the run acts for: the person behind a request on `oryx web`, the OS user on the CLI.
   * Plugins that keep per-person state (memory scopes) key it by this.
   */
  user?: string;
  /** A provider (by name) for this run instead of the agent's. */
  provider?: string;
  /** A model for this run instead of the agent's (or the provider's default). */
  model?: string;
  signal?: AbortSignal;
  /** Use the provider's streaming API and emit `token` events. */
  stream?: boolean;
  onEvent?(event: RunEvent): void;
  /** How approvals this run asks for are stored: `expiresInMs` after which nobody deciding denies them (the scheduler's). */
  approval?: { expiresInMs?: number };
}

export interface RunResult {
  /** The run's id (also in every audit row of the run). */
  runId: string;
  sessionId: string;
  agent: string;
  answer: string;
  stopReason: StopReason;
  /** One line saying why the run stopped, for every stop reason but `final`. */
  notice?: string;
  /** The limit reached, for `limit` and `budget`. */
  limit?: { name: BudgetLimit; value: number };
  iterations: number;
  usage: Usage;
  /** What the run used of its budget. */
  budget: BudgetUsed;
  /** Set when stopReason is `error`. */
  error?: { code: string; message: string; hint?: string };
  /** Set when stopReason is `approval`: the approval the run waits for. */
  approval?: ApprovalRef;
}

/** Per-run state handed to hooks. */
export interface RunContext {
  runId: string;
  agent: AgentDefinition;
  sessionId: string;
  provider: string;
  model: string;
  iteration: number;
  /**
   * Fires when the run is aborted or its `max_duration_ms` is up. In the kernel's runs it is
   * made when first read (a getter): read it from the run, a `{ ...run }` copy does not carry it.
   */
  signal: AbortSignal;
  /** Who the run acts for ({@link RunInput.user}). */
  user?: string;
  /** When the run started (ISO 8601); set by the kernel for every run it starts. */
  startedAt?: string;
  /** The run that started this one (a sub-agent's parent), when there is one. */
  parentRunId?: string;
  /**
   * The agents of the runs that started this one, outermost first (a sub-agent's callers). The
   * sandbox narrows the run by each one's `sandbox:` as well as by its own agent's: a sub-agent
   * can never do what its caller may not.
   */
  callers?: readonly AgentDefinition[];
  /** How approvals of this run are stored ({@link RunInput.approval}). */
  approval?: { expiresInMs?: number };
}
