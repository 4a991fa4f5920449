/**
 * The agent contract: what a tool, a tool source, a door and a stop rule give the kernel,
 * what an agent is, and what a run takes, emits and returns. Messages and providers are
 * `@oryxos/provider-spec`; the services plugins offer each other are `@oryxos/contracts`.
 */
import type {
  ExecLaunch, ExecRequest, RunContinuation, SandboxAction, Services, StopReason, SuspendedCall, ApprovalAsk,
} from '@oryxos/contracts';
import type { AgentFile, SkillFile } from '@oryxos/agent-files';
import type { AssistantMessage, JsonSchema, MediaPart, Message, ToolCall, ToolSpec, Usage } from '@oryxos/provider-spec';
import type { BudgetLimit, BudgetUsed, Stop as KitStop, StopRule as KitStopRule } from '@oryxos/stop-rules';

export type { BudgetLimit, BudgetUsed } from '@oryxos/stop-rules';

// ---------------------------------------------------------------------------------------
// Tools

/** What a tool returns. A string returned by `execute` is shorthand for `{content, isError: false}`. */
export interface ToolResult {
  content: string;
  isError: boolean;
  /** The model may retry the same call (timeouts, transient server errors). */
  retryable?: boolean;
  /** Set when the sandbox or a `beforeTool` guard refused the call; the reason. */
  denied?: string;
  /** Images and files for the model (an MCP server's image content), beside the text. */
  parts?: MediaPart[];
  /** The length of the content before the kernel cut it to `max_tool_output_chars` (set only when it did). */
  fullChars?: number;
  /** Set when the call had started in a process that died: it may have run; it was not run again. */
  interrupted?: boolean;
}

export type ToolSource = 'builtin' | 'mcp' | 'plugin';

/** Hints about what a tool does (MCP's tool annotations), for approval rules and for people. */
export interface ToolAnnotations {
  title?: string;
  /** It changes nothing: safe to run again. */
  readOnlyHint?: boolean;
  /** It may destroy or overwrite something. */
  destructiveHint?: boolean;
  /** Running it twice with the same arguments does what running it once does. */
  idempotentHint?: boolean;
  /** It reaches things outside this machine. */
  openWorldHint?: boolean;
}

/**
 * A tool registered by a plugin.
 *
 * @example
 * ctx.registerTool({
 *   name: 'word_count', description: 'Counts the words of a text.', source: 'plugin', idempotent: true,
 *   inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
 *   async execute(args) { return String(String(args.text).split(/\s+/).filter(Boolean).length); },
 * });
 */
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
   * Running it again after a crash cannot do harm (it only reads, or it is idempotent). A call of
   * any other tool that had started when its process died is never run again: it gets a result
   * saying it was interrupted and may have run. Default `false`; MCP tools take it from
   * `readOnlyHint` / `idempotentHint`.
   */
  idempotent?: boolean;
  annotations?: ToolAnnotations;
  /**
   * Validates arguments; return an error string to reject. When absent the kernel checks the
   * arguments against `inputSchema`.
   */
  validate?(args: Record<string, unknown>): string | undefined;
  /** Sandbox actions this call will perform; each is enforced before `execute` runs. */
  actions?(args: Record<string, unknown>, ctx: ToolContext): SandboxAction[] | Promise<SandboxAction[]>;
  /** `always`: every call waits for a person's approval first (the approvals plugin). */
  approval?: 'always';
  execute(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult | string>;
}

/**
 * A plugin that finds tools at run time (MCP servers, sub-agents). Listed before every model
 * call of a run, so a tool a server adds mid-run is there at the next step.
 */
export interface ToolProvider {
  name: string;
  /**
   * Its tools are the agent's by a frontmatter key of their own (sub-agents by `agents:`), so the
   * agent's `tools:` allow-list does not filter them.
   */
  ownList?: boolean;
  /** `run` is set when a run lists them (not for `oryx tools`). */
  list(ctx: { agent: AgentDefinition; run?: RunContext; signal?: AbortSignal }): Promise<Tool[]>;
  /** Health of each source (an MCP server), for `oryx tools` to show what is unavailable and why. */
  status?(): Promise<ToolSourceStatus[]>;
}

export interface ToolSourceStatus { name: string; ok: boolean; reason?: string; tools: number }

/** What a tool receives besides its arguments. */
export interface ToolContext {
  /** The run the call belongs to: its id, session, agent and who it acts for (`run.user`). */
  run: RunContext;
  toolCallId: string;
  /** Fires when the call's time is up or the run is aborted. */
  signal: AbortSignal;
  /** Headers to send with any HTTP request the call makes (a tracing plugin's `traceparent`). */
  headers: Readonly<Record<string, string>>;
  /** Enforces a sandbox action at the point of I/O; throws ORYX_E_SANDBOX_DENIED on denial. */
  enforce(action: SandboxAction): Promise<void>;
  /** Checks a whole process launch and returns how to start it; throws ORYX_E_SANDBOX_DENIED on denial. */
  launch(request: ExecRequest): Promise<ExecLaunch>;
  /**
   * The call is still making progress (an MCP server's progress notification): its time limit
   * starts again, bounded by the run's own deadline, and the door shows `message`.
   */
  progress(update: { message?: string; progress?: number; total?: number }): void;
  /** Asks the person behind the run's door (an MCP elicitation); undefined when nobody can answer now. */
  ask(question: Question): Promise<Answer | undefined>;
  /** Another plugin's service, by name. */
  service<K extends keyof Services>(name: K): Services[K];
}

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
  loop_detection: { repeat: number; pingpong: number } | false;
  /** Tool calls of one response run concurrently (tools with `parallel: false` alone). */
  parallel_tools: boolean;
  /** At most this many tool calls at a time. */
  max_parallel_tools: number;
  /** Turns of history a prompt holds at most; older ones leave in blocks (half the window at a time). */
  max_history_turns: number;
  /** Token budget for the whole prompt; older turns are dropped and long tool results cut to fit. */
  context_tokens: number;
  /** Tool calls of one model response that run; the rest get an error result. */
  max_tool_calls_per_step: number;
  /** Characters of one tool result the model sees (and the session stores); the rest is cut with a marker. */
  max_tool_output_chars: number;
  /** Settings that plugins declare (`Plugin.settings`): `max_agent_depth`, `pending_approval`. */
  [plugin: string]: unknown;
}

/** An agent loaded from `.oryxos/agents/<name>/AGENT.md` (its fields: `AgentFile` of `@oryxos/agent-files`), with its settings resolved. */
export type AgentDefinition = AgentFile<AgentSettings>;

export type SkillRef = SkillFile;

// ---------------------------------------------------------------------------------------
// Prompt

export interface PromptSection { id: string; title?: string; content: string }

/** What the prompt held and what was cut, in characters. Never silent. */
export interface PromptReport {
  injected: { section: string; chars: number }[];
  cut: { section: string; chars: number; reason: string }[];
  estimatedTokens: number;
}

/**
 * One step's prompt, most stable first so a provider can serve its start from cache: the tool
 * definitions (by name), the system sections (the agent, project files, skills, the date),
 * memory (read once per run), then the history. `prepareStep` taps add to `system` and
 * `memory`; nothing that changes within a run may go before the history.
 */
export interface Prompt {
  tools: ToolSpec[];
  system: PromptSection[];
  memory: PromptSection[];
  history: Message[];
  report: PromptReport;
}

// ---------------------------------------------------------------------------------------
// People and doors

/** Something a plugin asks the person behind a run's door. */
export type Question =
  | { kind: 'approval'; call: ToolCall; tool: Tool; asks: ApprovalAsk[] }
  | { kind: 'input'; source: string; message: string; schema: JsonSchema };

/**
 * The person's answer: approve this call (`always`: this tool, for the rest of the run) or deny
 * it; or the values a form asked for (`decline` / `cancel` as MCP's elicitation names them).
 */
export type Answer =
  | { decision: 'approve' | 'always' | 'deny'; by: string; reason?: string }
  | { action: 'accept'; content: Record<string, unknown> }
  | { action: 'decline' | 'cancel' };

/**
 * A way in: the CLI, the REST server, the scheduler, a chat channel. The host (`oryx serve`,
 * `oryx web`) starts every enabled door once the kernel has started and stops them before it
 * closes; a run a door starts names it (`RunInput.door`), and what the run needs from a person
 * goes to that door.
 *
 * @example
 * ctx.registerDoor({ name: 'telegram', start: () => bot.start(), stop: () => bot.stop(), ask: (q, run) => askInChat(q, run) });
 */
export interface Door {
  name: string;
  start?(): Promise<void>;
  /** Stops taking new work; runs going on get `graceMs` to finish, then are aborted. Says how many of each. */
  stop?(options?: { graceMs?: number }): Promise<void | StopReport>;
  /** A run this door started needs a person now; undefined when nobody can answer now (the run then suspends). */
  ask?(question: Question, run: RunContext): Promise<Answer | undefined>;
  /** The run is making progress someone may want to see (a long tool's progress). */
  progress?(run: RunContext, update: { toolCallId: string; message?: string; progress?: number; total?: number }): void;
  /**
   * What `oryx doctor` shows for the door, without starting it: its server reachable, its
   * credentials accepted (named, never printed). Called on a read-only kernel: it writes nothing.
   */
  check?(options: { signal: AbortSignal }): Promise<DoorCheck[]>;
}

/** One line a door's {@link Door.check} gives `oryx doctor`. */
export interface DoorCheck {
  /** What was checked: `email imap`, `telegram bot`. */
  check: string;
  status: 'ok' | 'fail' | 'warn' | 'skip';
  /** One line: where it connected and as whom (`password from env IMAP_PASS`), never a secret. */
  detail: string;
  code?: string;
  /** How to fix a failure. */
  fix?: string;
}

/** What a door's stop did with the runs it had going on. */
export interface StopReport { finished: number; aborted: number }

// ---------------------------------------------------------------------------------------
// Stopping

/** Why a stop rule or a budget limit ends a run, in one line for the user. */
export type Stop = KitStop;

/**
 * A rule that can end a run short of an answer (`@oryxos/stop-rules`): one watcher per run,
 * asked before each call and told after it. The budget limits are built in; loop detection is
 * the default rule.
 */
export type StopRule = KitStopRule<RunContext>;

// ---------------------------------------------------------------------------------------
// Runs

/** Events a run emits as it goes, for front ends (CLI, SSE, channels). */
export type RunEvent =
  | { type: 'iteration'; iteration: number }
  /** What the prompt of this step holds and what was cut to fit. */
  | { type: 'prompt'; report: PromptReport }
  | { type: 'token'; text: string }
  | { type: 'reasoning'; text: string }
  | { type: 'assistant'; message: AssistantMessage }
  | { type: 'tool_call'; call: ToolCall }
  | { type: 'tool_progress'; call: ToolCall; message?: string; progress?: number; total?: number }
  | { type: 'tool_result'; call: ToolCall; result: ToolResult }
  | { type: 'retry'; attempt: number; delayMs: number; error: { code: string; message: string } }
  /** The run is stopping short of an answer: why, before the final tool-less call. */
  | { type: 'stopping'; reason: Stop['reason']; notice: string }
  /** A tool call waits for something outside the run: the run stops after this response's calls. */
  | { type: 'suspended'; call: SuspendedCall; args: Record<string, unknown> };

export interface RunInput {
  agent: string;
  /** An existing session id; a new session is created when omitted. */
  session?: string;
  message: string;
  /** Images and files with the message. */
  parts?: MediaPart[];
  /**
   * Who the run acts for: the person behind a request on `oryx web`, the OS user on the CLI.
   * Plugins that keep per-person state (memory scopes) key it by this.
   */
  user?: string;
  /** The door the run comes through (`cli`, `web`, `telegram`): it is asked when the run needs a person. */
  door?: string;
  /** A provider (by name) for this run instead of the agent's. */
  provider?: string;
  /** A model for this run instead of the agent's (or the provider's default); `provider/model` picks the provider too. */
  model?: string;
  signal?: AbortSignal;
  /** Use the provider's streaming API and emit `token` events. */
  stream?: boolean;
  onEvent?(event: RunEvent): void;
  /** The run of the tool call that starts this one (a sub-agent): a child session, the same budget. */
  parent?: RunContext;
  /** Tags for a session this run creates (`eval:smoke`). */
  tags?: string[];
  /** What started the run, as the door describes it (a REST request, a scheduler slot): see {@link RunOrigin}. */
  origin?: RunOrigin;
  /**
   * A tool call the door makes itself instead of asking the model (an MCP client calling an
   * exposed tool): the run commits `message` and this call, runs it like a model's call of the
   * agent (its allow-list, the sandbox, `beforeTool` / `afterTool`, the budget), and ends after
   * it without calling the model. `RunResult.toolResult` is its result; a call a guard suspends
   * ends the run `suspended`, and continuing it runs the call and ends again.
   */
  call?: { name: string; args: Record<string, unknown> };
}

/**
 * Where a run comes from, as data a door gives and observers read: what started it, when, and the
 * trace context that came with it. The kernel only carries it (`run.origin`); a tracing plugin
 * makes it the parent of the run's span, so the web plugin needs no tracing code of its own.
 *
 * @example
 * runs.process({ agent, message, door: 'web', origin: {
 *   name: 'POST /api/sessions/:id/messages', startedAt: Date.now(),
 *   attributes: { 'http.request.method': 'POST' }, carrier: { traceparent: req.headers.traceparent },
 * } });
 */
export interface RunOrigin {
  /** What started the run, in a few words that do not vary per request: `POST /api/sessions/:id/messages`. */
  name?: string;
  /** When it started (ms since the epoch), when that was before the run (a request queued behind another run). */
  startedAt?: number;
  /** Facts about it, named as OpenTelemetry's semantic conventions name them where they can be (`http.request.method`). */
  attributes?: Readonly<Record<string, string | number | boolean>>;
  /** Propagation fields that came with it (W3C `traceparent`, `tracestate`), names in lower case. */
  carrier?: Readonly<Record<string, string>>;
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
  /** The limit reached, for `limit` and `budget` (a budget limit's name, or a stop rule's own). */
  limit?: { name: BudgetLimit | (string & {}); value: number };
  iterations: number;
  usage: Usage;
  /** What the run used of its budget. */
  budget: BudgetUsed;
  /** Set when stopReason is `error`. */
  error?: { code: string; message: string; hint?: string };
  /** Set when stopReason is `suspended`: the calls the run waits at. */
  suspended?: SuspendedCall[];
  /** The result of the call a run of {@link RunInput.call} made (or a continued one). */
  toolResult?: ToolResult;
}

/** Per-run state handed to hooks, tools and plugins. */
export interface RunContext {
  readonly runId: string;
  readonly agent: AgentDefinition;
  readonly sessionId: string;
  readonly provider: string;
  readonly model: string;
  /** Model calls so far. */
  readonly iteration: number;
  /** Fires when the run is aborted or its `max_duration_ms` is up. */
  readonly signal: AbortSignal;
  /** Who the run acts for ({@link RunInput.user}). */
  readonly user?: string;
  /** The door it came through ({@link RunInput.door}). */
  readonly door?: string;
  /** When the run started (ISO 8601). */
  readonly startedAt: string;
  /** The run that started this one (a sub-agent's parent), when there is one. */
  readonly parentRunId?: string;
  /**
   * The agents of the runs that started this one, outermost first (a sub-agent's callers). The
   * sandbox narrows the run by each one's `sandbox:` as well as by its own agent's.
   */
  readonly callers?: readonly AgentDefinition[];
  /** Set when the run continues a suspended one. */
  readonly continued?: RunContinuation;
  /** True for a run of one call a door made ({@link RunInput.call}): it calls no model. */
  readonly direct?: boolean;
  /** What started the run ({@link RunInput.origin}). */
  readonly origin?: RunOrigin;
}
