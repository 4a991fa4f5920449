import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { OryxError, errorMessage, isOryxError } from '@oryxos/provider-spec';
import { compileToolSchema, uncheckedNote } from '@oryxos/schema-kit';
import { enforceAction, prepareExec } from '@oryxos/kernel';
import type { ExecLaunch, SandboxAction } from '@oryxos/contracts';
import type { JsonSchema } from '@oryxos/provider-spec';
import type { PluginContext, ToolResult } from '@oryxos/kernel';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ServerEntry } from './config-file.ts';
import { toToolResult } from './content.ts';
import { inCall } from './call-headers.ts';
import { GuardedTransport, limitedFetch, REFUSED_ANSWER } from './guarded-transport.ts';
import { exposedName, toolAllowed } from './names.ts';
import { processAlive } from '@oryxos/plugin-kit';
import { descendants, descendantsSync, reap, signal as sendSignal } from './process-tree.ts';

/**
 * `idle` never started · `connecting` · `ready` · `failed` could not start (retried after a
 * backoff) · `closed` was connected and went away (restarted on next use) · `disabled` by
 * `enabled: false` · `shutdown` after `close`.
 */
export type ServerState = 'idle' | 'connecting' | 'ready' | 'failed' | 'closed' | 'disabled' | 'shutdown';

/** One server's health, for `oryx mcp list` and `oryx tools`. */
export interface McpServerStatus {
  name: string;
  transport: 'stdio' | 'http';
  /** The command line or URL. */
  target: string;
  origin: 'file' | 'options';
  state: ServerState;
  /** False when its tools cannot be offered now (failed, closed while in backoff, disabled, bad config). */
  ok: boolean;
  reason?: string;
  /** Tools offered (after the server's `tools:` allow-list); 0 until it has connected once. */
  tools: number;
  /** Process id of a running stdio server. */
  pid?: number;
  /** Consecutive failed attempts. */
  failures: number;
  /** When the next attempt is allowed, after a failure (ISO time). */
  retryAt?: string;
  /** The stderr log of a stdio server. */
  log?: string;
  /** Tools of the server left out, each with why (an invalid input schema). */
  refused?: string[];
}

/** A tool of a server, as the kernel and `oryx mcp tools` see it. */
export interface McpToolInfo {
  server: string;
  /** The server's own name for it. */
  name: string;
  /** The kernel tool name, `<server>__<name>`. */
  exposed: string;
  title?: string;
  description: string;
  /** The server's JSON Schema, unchanged. */
  inputSchema: JsonSchema;
}

export interface ServerDeps {
  ctx: PluginContext;
  timeoutMs: number;
  connectTimeoutMs: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Where stdio servers' stderr logs go; none for a read-only command (it writes no file). */
  logDir?: string;
  clientVersion: string;
  maxTools: number;
  maxToolListChars: number;
  maxMessageBytes: number;
}

interface RawTool { name: string; title?: string; description?: string; inputSchema: JsonSchema }
type StdioTransport = Transport & { pid: number | null };

/**
 * One MCP server: starts it on demand (after the sandbox allows it), keeps its tool list,
 * calls tools with a time limit, notices when it goes away and starts it again on next use,
 * with a backoff between failed attempts. Never throws from a tool call for a problem of the
 * server itself: that becomes an error result the model can act on.
 */
export class McpServerConnection {
  private state: ServerState;
  private client?: Client;
  private transport?: Transport;
  /** How the sandbox let the stdio server start (released when it ends). */
  private launch?: ExecLaunch;
  /** The process id of the last start, kept after it has exited (for the failure message). */
  private startedPid?: number;
  private connecting?: Promise<void>;
  private exposed = new Map<string, RawTool>();
  private refused: string[] = [];
  private guard?: GuardedTransport;
  private toolsStale = false;
  private reason?: string;
  private error?: OryxError;
  private failures = 0;
  private retryAt = 0;
  private stderrTail: string[] = [];
  private log?: WriteStream;
  /** Counts starts; a start that was given up no longer matches it. */
  private attempt = 0;
  /** Every process id this server has had, oldest first (diagnostics and tests). */
  readonly pids: number[] = [];

  constructor(readonly entry: ServerEntry, private readonly deps: ServerDeps) {
    this.state = entry.config.enabled === false ? 'disabled' : 'idle';
    if (entry.error && this.state !== 'disabled') {
      this.state = 'failed';
      this.error = entry.error;
      this.reason = entry.error.message;
    }
  }

  get name(): string { return this.entry.name; }
  get kind(): 'stdio' | 'http' { return this.entry.config.url !== undefined ? 'http' : 'stdio'; }
  get enabled(): boolean { return this.state !== 'disabled'; }
  /** Read through a getter: `close()` may change the state while `start()` awaits. */
  private get shuttingDown(): boolean { return this.state === 'shutdown'; }
  get timeoutMs(): number { return this.entry.config.timeoutMs ?? this.deps.timeoutMs; }
  get logFile(): string | undefined { return this.deps.logDir && path.join(this.deps.logDir, `mcp-${this.name}.log`); }

  /**
   * The program to start. A path with a slash is taken relative to the project folder, so the
   * sandbox checks exactly the file that is spawned, whatever the server's `cwd`.
   */
  get command(): string {
    const command = this.entry.config.command!;
    return /[\\/]/.test(command) && !path.isAbsolute(command) ? path.resolve(this.deps.ctx.config.root, command) : command;
  }

  /** What the sandbox is asked before the server is started or reached: the whole launch for a stdio server. */
  get action(): SandboxAction {
    const c = this.entry.config;
    if (this.kind === 'http') return { kind: 'http', url: c.url!, method: 'POST' };
    return { kind: 'exec', command: this.command, args: c.args ?? [], cwd: path.resolve(this.deps.ctx.config.root, c.cwd ?? '.'), ...(c.env ? { env: c.env } : {}) };
  }

  /** What asks the sandbox, for the audit trail. */
  private get origin(): string { return `mcp server ${this.name}`; }

  status(): McpServerStatus {
    const c = this.entry.config;
    const pid = this.kind === 'stdio' ? (this.transport as StdioTransport | undefined)?.pid ?? undefined : undefined;
    const waiting = this.retryAt > Date.now();
    const ok = this.state === 'ready' || this.state === 'idle' || this.state === 'connecting' || (this.state === 'closed' && !waiting);
    return {
      name: this.name,
      transport: this.kind,
      target: this.deps.ctx.secrets.mask(this.kind === 'http' ? c.url! : [this.command, ...(c.args ?? [])].join(' ')),
      origin: this.entry.origin,
      state: this.state,
      ok,
      ...(this.state === 'disabled' ? { reason: 'disabled (enabled: false)' } : this.reason ? { reason: this.reason } : {}),
      tools: this.exposed.size,
      ...(pid ? { pid } : {}),
      failures: this.failures,
      ...(waiting ? { retryAt: new Date(this.retryAt).toISOString() } : {}),
      ...(this.kind === 'stdio' && this.logFile ? { log: this.logFile } : {}),
      ...(this.refused.length ? { refused: [...this.refused] } : {}),
    };
  }

  /** Connects if needed; throws an OryxError saying why the server is unavailable. */
  async ready(signal?: AbortSignal): Promise<void> {
    if (this.state === 'ready' && this.client) return;
    if (this.state === 'disabled') {
      throw new OryxError('ORYX_E_MCP_SERVER_DISABLED', `MCP server "${this.name}" is disabled (enabled: false)`, {
        hint: 'Remove `enabled: false` from its entry to use it.',
      });
    }
    if (this.entry.error) throw this.entry.error;
    if (this.state === 'shutdown') {
      throw new OryxError('ORYX_E_MCP_UNAVAILABLE', `MCP server "${this.name}" has been shut down`, { hint: 'OryxOS is closing.' });
    }
    if (!this.connecting) {
      const wait = this.retryAt - Date.now();
      if (wait > 0) {
        throw new OryxError('ORYX_E_MCP_UNAVAILABLE',
          `${this.reason ?? `MCP server "${this.name}" failed`}; the next attempt to start it is allowed in ${Math.ceil(wait / 1000)} s`, {
            retryable: true, hint: `Read ${this.kind === 'stdio' ? this.logFile : 'the reason'} and fix the server entry.`, cause: this.error,
          });
      }
      this.connecting = this.start().finally(() => { this.connecting = undefined; });
    }
    await untilAborted(this.connecting, signal);
  }

  /** The tools it offers (its `tools:` allow-list applied), connecting first if needed. */
  async listTools(signal?: AbortSignal): Promise<McpToolInfo[]> {
    await this.ready(signal);
    if (this.toolsStale && this.client) {
      const client = this.client;
      try {
        await this.setTools(await fetchTools(client, this.guard, this.deps, signal));
      } catch (error) {
        if (classify(error) === 'lost') await this.lost(client, error);
        throw new OryxError('ORYX_E_MCP_UNAVAILABLE', `MCP server "${this.name}" failed to list its tools: ${errorMessage(error)}`, {
          retryable: true, cause: error, hint: 'It is restarted on next use; check its log if this repeats.',
        });
      }
    }
    return [...this.exposed.entries()].map(([exposed, t]) => ({
      server: this.name,
      name: t.name,
      exposed,
      ...(t.title ? { title: t.title } : {}),
      description: t.description ?? t.title ?? `${t.name} (MCP server ${this.name})`,
      inputSchema: t.inputSchema,
    }));
  }

  /** The server's name for a tool given by its own or its exposed name, if offered. */
  resolveTool(name: string): string | undefined {
    const byExposed = this.exposed.get(name);
    if (byExposed) return byExposed.name;
    return [...this.exposed.values()].find((t) => t.name === name)?.name;
  }

  /**
   * Calls a tool. Timeouts, a server that goes away mid-call and MCP `isError` results all
   * come back as error results (`retryable` where trying again may work); only "the server
   * cannot be used at all" throws.
   */
  async call(tool: string, args: Record<string, unknown>, options: { signal?: AbortSignal; timeoutMs?: number; headers?: Readonly<Record<string, string>> } = {}): Promise<ToolResult> {
    await this.ready(options.signal);
    const client = this.client!;
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const label = `${tool} on MCP server "${this.name}"`;
    try {
      // The call's headers (a tracer's traceparent) go on its HTTP requests (Streamable HTTP).
      const result = await inCall(options.headers, () => client.callTool({ name: tool, arguments: args }, undefined, { signal: options.signal, timeout: timeoutMs }));
      this.failures = 0;
      return toToolResult(result);
    } catch (error) {
      const kind = classify(error);
      if (options.signal?.aborted) return { content: `${label} was cancelled`, isError: true, retryable: false };
      if (kind === 'refused') return { content: `${label} failed: ${errorMessage(error).replace(/^MCP error -?\d+: /, '')}`, isError: true, retryable: false };
      if (kind === 'timeout') return { content: `${label} timed out after ${timeoutMs} ms and was cancelled`, isError: true, retryable: true };
      if (kind === 'lost') {
        await this.lost(client, error);
        return {
          content: `${label} failed: the server went away during the call (${this.reason ?? errorMessage(error)}). It is restarted on the next call.`,
          isError: true, retryable: true,
        };
      }
      return { content: `${label} failed: ${errorMessage(error)}`, isError: true, retryable: false };
    }
  }

  /** Shuts the server down: closes the transport, then ends whatever is left of its process tree. */
  async close(): Promise<void> {
    this.state = 'shutdown';
    await this.teardown();
    await this.connecting?.catch(() => {});
  }

  /** Last resort when the process exits without `close`: kill the tree synchronously. */
  killSync(): void {
    const pid = (this.transport as StdioTransport | undefined)?.pid;
    if (this.kind !== 'stdio' || !pid) return;
    sendSignal([...descendantsSync(pid), pid], 'SIGKILL');
  }

  // -------------------------------------------------------------------------------------

  private async start(): Promise<void> {
    this.state = 'connecting';
    const attempt = ++this.attempt;
    const ms = this.entry.config.connectTimeoutMs ?? this.deps.connectTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new OryxError('ORYX_E_MCP_CONNECT_TIMEOUT',
        `MCP server "${this.name}" did not finish the MCP handshake within ${ms} ms`, {
          retryable: true, hint: 'Raise connectTimeoutMs for it, or read its log to see why it is slow.',
        })), ms);
    });
    try {
      await Promise.race([this.open(attempt, ms), timeout]);
      if (this.shuttingDown) throw new OryxError('ORYX_E_MCP_UNAVAILABLE', 'shut down while connecting');
      this.state = 'ready';
      this.reason = undefined;
      this.error = undefined;
      this.failures = 0;
      this.retryAt = 0;
    } catch (error) {
      this.attempt++; // an open() still running for this attempt tears down what it creates
      // A server that failed its start gets no grace period: it is ended at once.
      await this.teardown({ graceful: false });
      const failure = this.startFailure(error);
      if (this.shuttingDown) throw failure;
      this.failures++;
      this.retryAt = Date.now() + this.backoff();
      this.state = 'failed';
      this.error = failure;
      this.reason = failure.message;
      this.deps.ctx.log.warn(`server "${this.name}" is unavailable: ${failure.message}`);
      throw failure;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Starts (or reaches) the server and lists its tools. `attempt` guards against a start that
   * was given up (timeout, close) while this was still awaiting: whatever it then creates is
   * closed at once instead of leaking.
   */
  private async open(attempt: number, timeoutMs: number): Promise<void> {
    const stale = () => attempt !== this.attempt || this.shuttingDown;
    const abandoned = () => new OryxError('ORYX_E_MCP_UNAVAILABLE', `the start of MCP server "${this.name}" was abandoned`);
    let launch: ExecLaunch | undefined;
    if (this.kind === 'http') await enforceAction(this.deps.ctx, this.action, { origin: this.origin });
    else {
      const { kind: _, ...request } = this.action as Extract<SandboxAction, { kind: 'exec' }>;
      launch = await prepareExec(this.deps.ctx, request, { origin: this.origin });
    }
    const [{ Client }, { transport, log }] = await Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      this.createTransport(launch),
    ]);
    if (stale()) {
      log?.end();
      await launch?.done();
      throw abandoned();
    }
    this.launch = launch;
    this.startedPid = undefined;
    if (this.kind === 'stdio') {
      // Remember the process as soon as it runs: a server that exits during start-up has run.
      const start = transport.start.bind(transport);
      transport.start = async () => {
        await start();
        this.startedPid = (transport as StdioTransport).pid ?? undefined;
        launch?.started(this.startedPid);
      };
    }
    const client: Client = new Client({ name: 'oryxos', version: this.deps.clientVersion }, {
      // Output schemas are not enforced: the model gets the content as text, and a server's
      // schema would otherwise be compiled and run with native regular expressions.
      jsonSchemaValidator: { getValidator: () => (input: unknown) => ({ valid: true, data: input as never, errorMessage: undefined }) },
      listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged: () => { if (this.client === client) this.toolsStale = true; } } },
    });
    this.client = client;
    this.transport = transport;
    this.log = log;
    this.stderrTail = [];
    client.onclose = () => { void this.lost(client, undefined); };
    client.onerror = (error) => this.deps.ctx.log.debug(`server "${this.name}": ${errorMessage(error)}`);
    const guard = new GuardedTransport(transport, this.deps, () => {
      const pid = (transport as StdioTransport).pid;
      if (pid) sendSignal([pid], 'SIGKILL');
    });
    this.guard = guard;
    await client.connect(guard, { timeout: timeoutMs + 1000 });
    if (stale()) throw abandoned(); // teardown has closed this client already
    const pid = (transport as StdioTransport).pid;
    if (this.kind === 'stdio' && pid) {
      this.pids.push(pid);
      log?.write(`[${new Date().toISOString()}] oryxos: connected to pid ${pid}\n`);
    }
    const tools = await fetchTools(client, guard, { ...this.deps, connectTimeoutMs: timeoutMs });
    if (stale()) throw abandoned();
    await this.setTools(tools);
    if (stale()) throw abandoned();
  }

  private async createTransport(launch?: ExecLaunch): Promise<{ transport: Transport; log?: WriteStream }> {
    const c = this.entry.config;
    if (this.kind === 'http') {
      const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
      const fetch = limitedFetch(this.deps.maxMessageBytes, () => this.guard);
      return { transport: new StreamableHTTPClientTransport(new URL(c.url!), { requestInit: { headers: c.headers ?? {} }, fetch }) };
    }
    const [{ StdioClientTransport }, { LinearReadBuffer }] = await Promise.all([import('@modelcontextprotocol/sdk/client/stdio.js'), import('./read-buffer.ts')]);
    const logFile = this.logFile;
    if (this.deps.logDir) await mkdir(this.deps.logDir, { recursive: true });
    const log = logFile ? createWriteStream(logFile, { flags: 'a' }) : undefined;
    log?.on('error', (error) => this.deps.ctx.log.debug(`cannot write ${this.logFile}: ${errorMessage(error)}`));
    const mask = (text: string) => this.deps.ctx.secrets.mask(text);
    log?.write(mask(`[${new Date().toISOString()}] oryxos: starting ${[this.command, ...(c.args ?? [])].join(' ')}${launch!.confined ? ' (confined)' : ''}\n`));
    // Exactly what the sandbox returned: the program (under bubblewrap when confined) with the
    // minimal environment plus what exec.env allows. The SDK adds HOME, LOGNAME, PATH, SHELL,
    // TERM and USER from this process, which the minimal environment holds already.
    const transport = new StdioClientTransport({
      command: launch!.file, args: launch!.args, env: launch!.env, cwd: launch!.cwd, stderr: 'pipe', maxBufferSize: this.deps.maxMessageBytes,
    });
    replaceReadBuffer(transport, new LinearReadBuffer(this.deps.maxMessageBytes));
    // Whole lines, secrets masked (a server may print its own arguments or token); a line without end is cut at 64 KiB.
    let partial = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop()!.slice(-65_536);
      if (!lines.length) return;
      log?.write(mask(`${lines.join('\n')}\n`));
      const shown = lines.map((l) => l.trim()).filter(Boolean);
      this.stderrTail = [...this.stderrTail, ...shown].slice(-5);
    });
    return { transport, log };
  }

  /**
   * Keeps the tools the server's `tools:` allow-list lets through whose input schema compiles
   * (each checked once, the event loop given a turn between them); a tool with an invalid
   * schema is left out, named with why in the status and the log.
   */
  private async setTools(tools: RawTool[]): Promise<void> {
    const exposed = new Map<string, RawTool>();
    const refused: string[] = [];
    let slice = performance.now();
    for (const t of tools) {
      if (!toolAllowed(this.entry.config.tools, t.name)) continue;
      try {
        const { unchecked } = await compileToolSchema(t.inputSchema, `tool "${t.name}" of MCP server "${this.name}"`);
        if (unchecked.length) this.deps.ctx.log.warn(`server "${this.name}": ${uncheckedNote(t.name, unchecked)}`);
      } catch (error) {
        refused.push(errorMessage(error));
        this.deps.ctx.log.warn(`server "${this.name}": ${errorMessage(error)}; the tool is left out`);
        continue;
      }
      if (performance.now() - slice > 10) { await new Promise((resolve) => setImmediate(resolve)); slice = performance.now(); }
      const name = exposedName(this.name, t.name);
      if (exposed.has(name)) {
        this.deps.ctx.log.warn(`server "${this.name}" has tools "${exposed.get(name)!.name}" and "${t.name}", which both become ${name}; only the first is offered`);
        continue;
      }
      exposed.set(name, t);
    }
    this.exposed = exposed;
    this.refused = refused;
    this.toolsStale = false;
  }

  /** The connection went away (crash, exit, network): remember why; the next use starts it again. */
  private async lost(client: Client, error: unknown): Promise<void> {
    if (client !== this.client || this.state !== 'ready') return;
    await new Promise((resolve) => setImmediate(resolve)); // the last stderr lines arrive just after the close
    if (client !== this.client) return;
    this.state = 'closed';
    this.failures++;
    this.retryAt = Date.now() + this.backoff();
    this.reason = `${error ? errorMessage(error) : this.guard?.oversize ?? 'the server closed the connection'}${this.tail()}`;
    this.error = new OryxError('ORYX_E_MCP_UNAVAILABLE', `MCP server "${this.name}" went away: ${this.reason}`, { retryable: true });
    this.deps.ctx.log.warn(`server "${this.name}" went away (${this.reason}); it is restarted on next use`);
    await this.teardown();
  }

  private async teardown(options: { graceful?: boolean } = {}): Promise<void> {
    const client = this.client;
    const transport = this.transport;
    const log = this.log;
    const launch = this.launch;
    this.client = undefined;
    this.transport = undefined;
    this.log = undefined;
    this.launch = undefined;
    const pid = this.kind === 'stdio' ? (transport as StdioTransport | undefined)?.pid ?? undefined : undefined;
    if (pid && !this.pids.includes(pid)) this.pids.push(pid);
    const tree = pid ? await descendants(pid).catch(() => []) : [];
    const http = transport as { sessionId?: string; terminateSession?: () => Promise<void> } | undefined;
    if (this.kind === 'http' && http?.sessionId && http.terminateSession) {
      await Promise.race([http.terminateSession().catch(() => {}), new Promise((r) => setTimeout(r, 1000).unref())]);
    }
    if (options.graceful === false && pid) sendSignal([pid], 'SIGTERM');
    if (client) await client.close().catch(() => {});
    else await transport?.close().catch(() => {});
    await reap(pid && processAlive(pid) ? [...tree, pid] : tree);
    await launch?.done();
    if (log) {
      log.write(`[${new Date().toISOString()}] oryxos: disconnected\n`);
      await new Promise<void>((resolve) => log.end(resolve));
    }
  }

  private startFailure(error: unknown): OryxError {
    const logFile = this.logFile;
    const hint = this.kind === 'stdio'
      ? (logFile ? `Check its command and read ${path.relative(process.cwd(), logFile) || logFile}.` : `Check its command; its error output: ${this.stderrTail.join(' | ') || '(none)'}.`)
      : 'Check the url and headers, and that the server is running.';
    if (isOryxError(error)) {
      if (error.code === 'ORYX_E_SANDBOX_DENIED') {
        return new OryxError(error.code, `MCP server "${this.name}" may not be started: ${error.message}`, { cause: error, hint: error.hint });
      }
      return new OryxError(error.code, `${error.message}${this.tail()}`, { cause: error, hint: error.hint ?? hint, retryable: error.retryable });
    }
    const e = error as NodeJS.ErrnoException;
    let why = errorMessage(error);
    if (e?.code === 'ENOENT' && this.kind === 'stdio') why = `the command "${this.entry.config.command}" was not found`;
    else if ((error as { name?: string })?.name === 'McpError' && (error as { code?: number }).code === -32000) {
      why = this.kind !== 'stdio' ? 'the connection closed during startup'
        : this.startedPid ? `the server process ran (pid ${this.startedPid}) and exited during start-up, before it finished the MCP handshake`
          : 'the server exited during startup';
    }
    return new OryxError('ORYX_E_MCP_UNAVAILABLE', `MCP server "${this.name}" could not be started: ${why}${this.tail()}`, { cause: error, hint, retryable: true });
  }

  private tail(): string {
    return this.stderrTail.length ? ` (stderr: ${this.stderrTail.join(' | ').slice(-400)})` : '';
  }

  /** The first retry is immediate; after that base × 2ⁿ, capped. */
  private backoff(): number {
    if (this.failures <= 1) return 0;
    return Math.min(this.deps.maxDelayMs, this.deps.baseDelayMs * 2 ** (this.failures - 2));
  }
}

/**
 * Every tool of the server, following pagination, within the limits: more than `maxTools`
 * tools or `maxToolListChars` characters of JSON refuses the whole list, naming the limit.
 */
async function fetchTools(client: Client, guard: GuardedTransport | undefined, limits: Pick<ServerDeps, 'connectTimeoutMs' | 'maxTools' | 'maxToolListChars'>, signal?: AbortSignal): Promise<RawTool[]> {
  const tools: RawTool[] = [];
  let chars = 0;
  let pages = 0;
  let cursor: string | undefined;
  do {
    if (++pages > limits.maxTools) throw new Error(`the server's tool list has more than ${limits.maxTools} pages`);
    const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: limits.connectTimeoutMs, signal });
    // Each tool with the input schema the server sent (the SDK saw a placeholder).
    const listed = page.tools.map((t) => ({ ...t, inputSchema: (guard?.inputSchema(t.name) ?? t.inputSchema) as JsonSchema }));
    tools.push(...listed);
    if (tools.length > limits.maxTools) throw new Error(`the server offers more than ${limits.maxTools} tools (limits.maxTools)`);
    for (const t of listed) chars += JSON.stringify(t).length;
    if (chars > limits.maxToolListChars) throw new Error(`the server's tool list is more than ${limits.maxToolListChars} characters of JSON (limits.maxToolListChars)`);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

/**
 * What went wrong with a request: the server answered with an error (`protocol`), the
 * request ran out of time (`timeout`), or the connection is gone (`lost`: closed, fetch
 * failed, HTTP error status, session expired).
 */
function classify(error: unknown): 'protocol' | 'timeout' | 'lost' | 'refused' {
  const e = error as { name?: string; code?: unknown; issues?: unknown };
  if (e?.name === 'McpError') {
    if (e.code === REFUSED_ANSWER) return 'refused';
    if (e.code === -32001) return 'timeout';
    if (e.code === -32000) return 'lost';
    return 'protocol';
  }
  if (Array.isArray(e?.issues)) return 'protocol'; // the result did not match the schema
  return 'lost';
}

/**
 * Gives the SDK's stdio transport the linear line buffer. It is a private field of the SDK, so
 * its absence (a changed SDK) is an error here, and a test, rather than a silent fallback.
 */
export function replaceReadBuffer(transport: object, buffer: object): void {
  if (!('_readBuffer' in transport)) throw new Error('the MCP SDK\'s stdio transport has no _readBuffer any more: update replaceReadBuffer');
  (transport as { _readBuffer: object })._readBuffer = buffer;
}

/** Waits for a shared promise, giving up (without cancelling it) when the signal aborts. */
function untilAborted<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(new OryxError('ORYX_E_RUN_ABORTED', 'The run was aborted'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new OryxError('ORYX_E_RUN_ABORTED', 'The run was aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
