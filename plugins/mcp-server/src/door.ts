/**
 * The `mcp` door: what the runs of MCP clients' calls need from this process — who asks
 * (the client, by its declared name and version), where a question for a person goes (the
 * client's elicitation), where progress goes (the call's progress token). The transports
 * (stdio under `oryx mcp serve`) attach to it; started by `oryx serve` alone it serves nothing.
 */
import { matchesToolPattern } from '@oryxos/schema-kit';
import type { Answer, Door, DoorCheck, PluginContext, Question, RunContext, StopReport } from '@oryxos/kernel';
import { ERROR_CODES } from './errors.ts';
import type { ResolvedMcpServerOptions } from './options.ts';

export const DOOR = 'mcp';

/** The attribute of `run.origin` that names the MCP call a run belongs to. */
export const CALL_ATTRIBUTE = 'oryx.mcp.call';

/** One tools/call going on: how to reach its client while its run works. */
export interface CallHandle {
  /** Asks the client's person (elicitation); undefined when the client cannot or nobody answered. */
  ask(question: Question, run: RunContext): Promise<Answer | undefined>;
  /** Sends a progress notification, when the client asked for them. */
  progress(message: string, update?: { progress?: number; total?: number }): void;
  /** Aborts the call's run (the server stops). */
  abort(reason: string): void;
  /** Settles when the call has answered. */
  done: Promise<unknown>;
}

/** A connection to one client (one stdio pair, one HTTP session). */
export interface Connection { close(): Promise<void>; closed: Promise<void> }

/**
 * Keeps the calls going on and the connections open, and answers for the door.
 *
 * @example
 * const door = new McpDoor(ctx, options);
 * ctx.registerDoor(door.door());
 * const connection = await door.serveStdio();
 * await connection.closed;
 */
export class McpDoor {
  private readonly calls = new Map<string, CallHandle>();
  /** Runs of calls going on, and their sub-agents' runs, to the call they belong to. */
  private readonly runs = new Map<string, string>();
  private readonly connections = new Set<Connection>();
  private stopping = false;

  constructor(private readonly ctx: PluginContext, readonly options: ResolvedMcpServerOptions, readonly version: string) {
    ctx.hooks.runStart.tapPromise(async (run) => {
      const key = callOf(run) ?? (run.parentRunId ? this.runs.get(run.parentRunId) : undefined);
      if (key && this.calls.has(key)) this.runs.set(run.runId, key);
    });
    ctx.hooks.afterRun.tapPromise(async (result, run) => {
      this.runs.delete(run.runId);
      for (const listener of this.sessionListeners) listener(result.sessionId, result.agent);
    });
  }

  private readonly sessionListeners = new Set<(sessionId: string, agent: string) => void>();

  /** Calls `listener` with the session (and its agent) of every run that ends in this process (for resource notifications); returns how to stop. */
  onSessionChange(listener: (sessionId: string, agent: string) => void): () => void {
    this.sessionListeners.add(listener);
    return () => { this.sessionListeners.delete(listener); };
  }

  /** The door the kernel knows. */
  door(): Door {
    return {
      name: DOOR,
      stop: (options) => this.stop(options),
      check: () => this.check(),
      ask: (question, run) => this.ask(question, run),
      progress: (run, update) => {
        // A top-level run's tool progress reaches its call as a run event; a sub-agent's only here.
        if (!run.parentRunId) return;
        const call = this.callFor(run);
        call?.progress(update.message ?? `${run.agent.name}: working`, update);
      },
    };
  }

  /**
   * What `oryx doctor` shows: each exposed agent as its tool (or why it cannot be served) and
   * where the server is reached. Reads the agents only.
   */
  async check(): Promise<DoorCheck[]> {
    const names = await this.ctx.agents.names();
    const lines: DoorCheck[] = [];
    for (const { agent, tool } of this.options.agents) {
      if (!names.includes(agent)) {
        lines.push({
          check: `mcp ${tool}`, status: 'fail', detail: `no agent "${agent}" in ${this.ctx.agents.agentsDir} (agents: ${names.join(', ') || 'none'})`,
          code: 'ORYX_E_MCPSERVE_UNKNOWN_AGENT', fix: ERROR_CODES.ORYX_E_MCPSERVE_UNKNOWN_AGENT,
        });
        continue;
      }
      const definition = await this.ctx.agents.load(agent);
      // Its allow-list, not the tools found: listing those would start MCP servers from doctor.
      lines.push({ check: `mcp ${tool}`, status: 'ok', detail: `agent ${agent} (${definition.tools.length ? `tools: ${definition.tools.join(', ')}` : 'no tools'})` });
    }
    if (this.options.tools.length) {
      // Against the allow-list, as above: the tools themselves are found when the server starts.
      const agent = names.includes(this.options.toolAgent) ? await this.ctx.agents.load(this.options.toolAgent) : undefined;
      const outside = this.options.tools.filter((t) => !agent?.tools.some((p) => matchesToolPattern(t, p)));
      lines.push(outside.length
        ? { check: 'mcp tools', status: 'fail', detail: `${outside.join(', ')} not in agent ${this.options.toolAgent}'s tools: allow-list`, code: 'ORYX_E_MCPSERVE_UNKNOWN_TOOL', fix: ERROR_CODES.ORYX_E_MCPSERVE_UNKNOWN_TOOL }
        : { check: 'mcp tools', status: 'ok', detail: `${this.options.tools.join(', ')} (each call a run of ${this.options.toolAgent}: its sandbox, approvals and audit)` });
    }
    if (this.options.prompts.length) {
      const skills = new Set<string>();
      for (const { agent } of this.options.agents) if (names.includes(agent)) for (const skill of (await this.ctx.agents.load(agent)).skills) skills.add(skill.name);
      const unknown = this.options.prompts.filter((p) => !skills.has(p));
      lines.push(unknown.length
        ? { check: 'mcp prompts', status: 'fail', detail: `no skill ${unknown.join(', ')} in the exposed agents (skills: ${[...skills].join(', ') || 'none'})`, code: 'ORYX_E_MCPSERVE_UNKNOWN_PROMPT', fix: ERROR_CODES.ORYX_E_MCPSERVE_UNKNOWN_PROMPT }
        : { check: 'mcp prompts', status: 'ok', detail: `skills ${this.options.prompts.join(', ')}` });
    }
    const resources = [...(this.options.sessions ? ['sessions (oryx://sessions/{id})'] : []),
      ...(this.options.memory ? [`memory (oryx://memory/{agent}${this.ctx.hasService('memory') ? '' : ': no memory plugin enabled, so none'})`] : []),
      ...this.options.sources.map((s) => s.name)];
    if (resources.length) lines.push({ check: 'mcp resources', status: 'ok', detail: `read-only: ${resources.join(', ')}` });
    const where = ['stdio: oryx mcp serve', ...(this.options.httpPath ? [`Streamable HTTP: ${this.options.httpPath} in oryx web (behind its token)`] : [])];
    lines.push({ check: 'mcp serve', status: 'ok', detail: `${where.join('; ')}; approvals through the client's elicitation, else paused for oryx approvals` });
    return lines;
  }

  /** A call starts: its handle, until `release`. */
  track(key: string, handle: CallHandle): () => void {
    this.calls.set(key, handle);
    return () => { this.calls.delete(key); };
  }

  get accepting(): boolean { return !this.stopping; }

  /** Serves MCP on this process's stdin and stdout until the client closes them. */
  async serveStdio(): Promise<Connection> {
    const { serveStdio } = await import('./server.ts');
    const connection = await serveStdio(this, this.ctx);
    this.keep(connection);
    return connection;
  }

  /** A connection to close when the door stops (an HTTP session). */
  keep(connection: Connection): void {
    this.connections.add(connection);
    void connection.closed.then(() => this.connections.delete(connection));
  }

  private callFor(run: RunContext): CallHandle | undefined {
    const key = this.runs.get(run.runId) ?? callOf(run);
    return key ? this.calls.get(key) : undefined;
  }

  private async ask(question: Question, run: RunContext): Promise<Answer | undefined> {
    return this.callFor(run)?.ask(question, run);
  }

  /** Stops taking calls; those going on get `graceMs`, then are aborted; then the connections close. */
  private async stop(options: { graceMs?: number } = {}): Promise<StopReport> {
    this.stopping = true;
    const going = [...this.calls.values()];
    const grace = options.graceMs ?? this.options.graceMs;
    let finished = 0;
    let aborted = 0;
    await Promise.all(going.map(async (call) => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => { timer = setTimeout(() => resolve('late'), grace); });
      const outcome = await Promise.race([call.done.then(() => 'done' as const, () => 'done' as const), late]);
      clearTimeout(timer);
      if (outcome === 'late') { aborted++; call.abort('the MCP server is stopping'); await call.done.catch(() => {}); } else finished++;
    }));
    await Promise.all([...this.connections].map((c) => c.close().catch(() => {})));
    return { finished, aborted };
  }
}

function callOf(run: RunContext): string | undefined {
  const key = run.origin?.attributes?.[CALL_ATTRIBUTE];
  return typeof key === 'string' ? key : undefined;
}
