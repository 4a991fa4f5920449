import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { OryxError, errorMessage, isOryxError } from '@oryxos/provider-spec';
import { compileToolSchema, uncheckedNote } from '@oryxos/schema-kit';
import type { ExecLaunch, SandboxAction } from '@oryxos/contracts';
import type { PluginContext } from '@oryxos/kernel';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { inCall } from './call-headers.ts';
import { enforceAction, prepareExec, processAlive } from '@oryxos/plugin-kit';
import type { OAuthSession } from './auth/oauth.ts';
import type { TokenStore } from './auth/token-store.ts';
import type { CallInfo, ClientHooks, McpProgress } from './client-hooks.ts';
import type { ServerEntry, ServerOrigin } from './config-file.ts';
import { resourceResult, toToolResult, type McpResourceContent, type McpToolResult } from './content.ts';
import { classify, describeRemoteFailure, httpStatus } from './failure.ts';
import { GuardedTransport } from './guarded-transport.ts';
import { exposedName, toolAllowed } from './names.ts';
import { transportOf, type McpTransportKind } from './options.ts';
import { descendants, descendantsSync, reap, signal as sendSignal } from './process-tree.ts';
import { TAIL_LINES, stderrNote } from './stderr-tail.ts';
import { toolInfo, type McpToolInfo, type RawTool } from './tool-view.ts';

export type { McpToolInfo } from './tool-view.ts';

/**
 * `idle` never started · `connecting` · `ready` · `failed` could not start (retried after a
 * backoff) · `closed` was connected and went away (restarted on next use) · `disabled` by
 * `enabled: false` · `shutdown` after `close`.
 */
export type ServerState = 'idle' | 'connecting' | 'ready' | 'failed' | 'closed' | 'disabled' | 'shutdown';

/** One server's health, for `oryx mcp list` and `oryx tools`. */
export interface McpServerStatus {
  name: string;
  transport: McpTransportKind;
  /** The command line or URL. */
  target: string;
  origin: ServerOrigin;
  /** The file it was declared in, or `mcp() options`. */
  source: string;
  state: ServerState;
  /** False when its tools cannot be offered now (failed, closed while in backoff, disabled, bad config). */
  ok: boolean;
  reason?: string;
  /** How to fix what `reason` says (run `oryx mcp login NAME`, allow a program in the sandbox). */
  hint?: string;
  /** Tools offered (after the server's `tools:` allow-list); 0 until it has connected once. */
  tools: number;
  /** Process id of a running stdio server. */
  pid?: number;
  /** Consecutive failed attempts. */
  failures: number;
  /** When the next attempt is allowed, after a failure (ISO time). */
  retryAt?: string;
  /** The server's log (its stderr, its log notifications, start and stop lines). */
  log?: string;
  /** Tools of the server left out, each with why (an invalid input schema). */
  refused?: string[];
  /** A remote server with OAuth: whether tokens are stored, and that a sign-in is needed. */
  auth?: 'signed-in' | 'login-needed' | 'none';
  /** What the server offers besides tools, once connected. */
  features?: { resources: boolean; prompts: boolean; logging: boolean };
  /** What was read differently from its file (another client's field left out). */
  notes?: string[];
  /** Why an agent got none of its tools (more than `limits.maxTools` matched its `tools:` list). */
  warning?: string;
}

export interface ServerDeps {
  ctx: PluginContext;
  timeoutMs: number;
  maxCallMs: number;
  connectTimeoutMs: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Where servers' logs go. */
  logDir: string;
  clientVersion: string;
  maxToolListChars: number;
  maxMessageBytes: number;
  tokens: TokenStore;
  /** Set by the host at run time (elicitation, progress, the browser sign-in); read when used. */
  hooks: ClientHooks;
}

/** Options of one call. */
export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Sees the call's progress notifications (the `mcp` service's `onProgress` sees them too). */
  onProgress?: (progress: McpProgress) => void;
  /** Who made the call, for the hooks. */
  call?: Partial<Omit<CallInfo, 'server' | 'tool'>>;
  /** The tool may safely run twice (read-only or idempotent): a call whose stream was cut is sent again once. */
  repeatable?: boolean;
  /** Headers for the call's HTTP requests (`ctx.headers`: a tracer's traceparent), on Streamable HTTP and SSE servers. */
  headers?: Readonly<Record<string, string>>;
}

/** Tools of a list whose schemas are compiled when it arrives; a longer list is checked as agents use it. */
const EAGER_SCHEMAS = 512;

/** Pages of a list OryxOS follows before it calls the list endless. */
const MAX_PAGES = 1000;

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
  /** Tools whose schema was compiled (the bad ones are no longer in `exposed`). */
  private checked = new Set<string>();
  private refused: string[] = [];
  private guard?: GuardedTransport;
  private toolsStale = false;
  private reason?: string;
  private error?: OryxError;
  private failures = 0;
  private retryAt = 0;
  private stderrTail: string[] = [];
  private log?: WriteStream;
  private session?: OAuthSession;
  private features?: McpServerStatus['features'];
  private readonly calls = new Set<CallInfo>();
  private signedIn = false;
  private lastWarning?: string;
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
  get kind(): McpTransportKind { return transportOf(this.entry.config); }
  get enabled(): boolean { return this.state !== 'disabled'; }
  /** Read through a getter: `close()` may change the state while `start()` awaits. */
  private get shuttingDown(): boolean { return this.state === 'shutdown'; }
  get timeoutMs(): number { return this.entry.config.timeoutMs ?? this.deps.timeoutMs; }
  get logFile(): string { return path.join(this.deps.logDir, `mcp-${this.name}.log`); }
  /** Whether it offers resources (known once connected). */
  get hasResources(): boolean { return this.features?.resources === true; }

  /**
   * The program to start. A path with a slash is taken relative to the project folder, so the
   * sandbox checks exactly the file that is spawned, whatever the server's `cwd`.
   */
  get command(): string {
    const command = this.entry.config.command ?? '';
    return /[\\/]/.test(command) && !path.isAbsolute(command) ? path.resolve(this.deps.ctx.config.root, command) : command;
  }

  /** What the sandbox is asked before the server is started or reached: the whole launch for a stdio server. */
  get action(): SandboxAction {
    const c = this.entry.config;
    if (this.kind !== 'stdio') return { kind: 'http', url: c.url ?? '', method: 'POST' };
    return { kind: 'exec', command: this.command, args: c.args ?? [], cwd: path.resolve(this.deps.ctx.config.root, c.cwd ?? '.'), ...(c.env ? { env: c.env } : {}) };
  }

  /** What asks the sandbox, for the audit trail. */
  private get origin(): string { return `mcp server ${this.name}`; }

  /** Whether OryxOS answers this server's authorization challenges (a remote server without a fixed Authorization header, and not `oauth: false`). */
  get usesOAuth(): boolean {
    const c = this.entry.config;
    if (this.kind === 'stdio' || c.oauth === false) return false;
    const fixed = Object.keys(c.headers ?? {}).some((h) => h.toLowerCase() === 'authorization');
    return !fixed || c.oauth !== undefined;
  }

  status(): McpServerStatus {
    const c = this.entry.config;
    const pid = this.kind === 'stdio' ? (this.transport as StdioTransport | undefined)?.pid ?? undefined : undefined;
    const waiting = this.retryAt > Date.now();
    const ok = this.state === 'ready' || this.state === 'idle' || this.state === 'connecting' || (this.state === 'closed' && !waiting);
    const target = this.kind !== 'stdio' ? c.url ?? '(no url)' : [this.command || '(no command)', ...(c.args ?? [])].join(' ');
    return {
      name: this.name,
      transport: this.kind,
      target: this.deps.ctx.secrets.mask(target),
      origin: this.entry.origin,
      source: this.entry.source,
      state: this.state,
      ok,
      ...(this.state === 'disabled' ? { reason: 'disabled (enabled: false)' } : this.reason ? { reason: this.reason } : {}),
      ...(!ok && this.state !== 'disabled' && this.error?.hint ? { hint: this.error.hint } : {}),
      tools: this.exposed.size,
      ...(pid ? { pid } : {}),
      failures: this.failures,
      ...(waiting ? { retryAt: new Date(this.retryAt).toISOString() } : {}),
      ...(this.entry.error ? {} : { log: this.logFile }),
      ...(this.refused.length ? { refused: [...this.refused] } : {}),
      ...(this.usesOAuth ? { auth: this.session?.needsLogin ? 'login-needed' as const : this.signedIn ? 'signed-in' as const : 'none' as const } : {}),
      ...(this.features ? { features: { ...this.features } } : {}),
      ...(this.entry.notes?.length ? { notes: [...this.entry.notes] } : {}),
    };
  }

  /** Logs a warning about this server once (it repeats on every run otherwise). */
  warn(message: string): void {
    if (message === this.lastWarning) return;
    this.lastWarning = message;
    this.deps.ctx.log.warn(message);
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
        throw new OryxError(this.error?.code ?? 'ORYX_E_MCP_UNAVAILABLE',
          `${this.reason ?? `MCP server "${this.name}" failed`}; the next attempt to start it is allowed in ${Math.ceil(wait / 1000)} s`, {
            retryable: true, hint: this.error?.hint ?? `Read ${this.logFile} and fix the server entry.`, cause: this.error,
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
    return [...this.exposed.entries()].map(([exposed, t]) => toolInfo(t, this.name, exposed));
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
   * cannot be used at all" throws. A session the server forgot (HTTP 404) is renewed and the
   * call sent again, at no cost to the model; a cut response stream fails at once, and is sent
   * again once when the tool may safely run twice.
   */
  async call(tool: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<McpToolResult> {
    await this.ready(options.signal);
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const label = `${tool} on MCP server "${this.name}"`;
    const info: CallInfo = { server: this.name, tool, ...options.call };
    const onprogress = (p: { progress: number; total?: number; message?: string }) => {
      const progress: McpProgress = { progress: p.progress, ...(p.total !== undefined ? { total: p.total } : {}), ...(p.message !== undefined ? { message: p.message } : {}) };
      options.onProgress?.(progress);
      try { this.deps.hooks.onProgress?.(this.name, info, progress); } catch (error) { this.deps.ctx.log.debug(`onProgress failed: ${errorMessage(error)}`); }
    };
    // The call's headers (a tracer's traceparent) reach its HTTP requests through its async context (call-headers.ts).
    const send = () => inCall(options.headers, () => this.client!.callTool({ name: tool, arguments: args }, undefined, {
      signal: options.signal, timeout: timeoutMs, resetTimeoutOnProgress: true, maxTotalTimeout: Math.max(this.deps.maxCallMs, timeoutMs), onprogress,
    }));
    this.calls.add(info);
    try {
      let retried: 'session' | 'cut' | undefined;
      for (;;) {
        const client = this.client!;
        try {
          const result = await send();
          this.failures = 0;
          return toToolResult(result, `${this.name}/${tool}`);
        } catch (error) {
          const kind = classify(error, !!(this.transport as { sessionId?: string } | undefined)?.sessionId);
          if (options.signal?.aborted) return { content: `${label} was cancelled`, isError: true, retryable: false };
          if (kind === 'session' && !retried) {
            retried = 'session';
            this.deps.ctx.log.info(`server "${this.name}" no longer knows its session (HTTP 404): starting a new one and sending ${tool} again`);
            await this.renewSession(client);
            await this.ready(options.signal);
            continue;
          }
          if (kind === 'cut' && options.repeatable && !retried) {
            retried = 'cut';
            this.deps.ctx.log.info(`server "${this.name}": ${errorMessage(error).replace(/^MCP error -?\d+: /, '')}; sending ${tool} again (it may run twice safely)`);
            continue;
          }
          return this.failedCall(label, kind, error, client, timeoutMs);
        }
      }
    } finally {
      this.calls.delete(info);
    }
  }

  /** The error result of a failed call. */
  private async failedCall(label: string, kind: ReturnType<typeof classify>, error: unknown, client: Client, timeoutMs: number): Promise<McpToolResult> {
    const said = errorMessage(error).replace(/^MCP error -?\d+: /, '');
    switch (kind) {
      case 'refused': return { content: `${label} failed: ${said}`, isError: true, retryable: false };
      case 'timeout': return { content: `${label} timed out after ${timeoutMs} ms without progress and was cancelled`, isError: true, retryable: true };
      case 'cut': return { content: `${label} failed: ${said}. It may or may not have run; call it again only if that is safe.`, isError: true, retryable: true };
      case 'auth': {
        const why = isOryxError(error) ? `${error.message}. ${error.hint ?? ''}`.trim() : `${describeRemoteFailure(error, this.entry.config.url ?? '', this.kind === 'sse' ? 'sse' : 'http').why}. Run oryx mcp login ${this.name}.`;
        return { content: `${label} failed: ${why}`, isError: true, retryable: false };
      }
      case 'lost':
      case 'session': {
        await this.lost(client, error);
        return {
          content: `${label} failed: the server went away during the call (${this.reason ?? said}). It is restarted on the next call.`,
          isError: true, retryable: true,
        };
      }
      default: return { content: `${label} failed: ${said}`, isError: true, retryable: false };
    }
  }

  /** Its resources and resource templates (`resources/list`, `resources/templates/list`, every page). */
  async listResources(signal?: AbortSignal): Promise<{ resources: McpResourceInfo[]; templates: McpResourceTemplateInfo[] }> {
    const client = await this.feature('resources', signal);
    const resources = await allPages((cursor) => client.listResources(cursor ? { cursor } : undefined, { signal, timeout: this.timeoutMs }), (p) => p.resources);
    const templates = await allPages((cursor) => client.listResourceTemplates(cursor ? { cursor } : undefined, { signal, timeout: this.timeoutMs }), (p) => p.resourceTemplates)
      .catch(() => []); // templates are optional: a server may not know the method
    return { resources: resources.map(pickResource), templates: templates.map(pickTemplate) };
  }

  /** The contents of one resource (`resources/read`). */
  async readResource(uri: string, signal?: AbortSignal): Promise<McpResourceContent[]> {
    const client = await this.feature('resources', signal);
    try {
      const result = await client.readResource({ uri }, { signal, timeout: this.timeoutMs });
      return result.contents as McpResourceContent[];
    } catch (error) {
      throw this.requestFailed(`read ${uri}`, error);
    }
  }

  /** `<server>__read_resource` as a tool result. */
  async readResourceResult(uri: string, signal?: AbortSignal): Promise<McpToolResult> {
    try {
      return resourceResult(await this.readResource(uri, signal), `${this.name}/${uri}`);
    } catch (error) {
      return { content: errorMessage(error), isError: true, retryable: isOryxError(error) ? error.retryable === true : false };
    }
  }

  /** Its prompts (`prompts/list`, every page). */
  async listPrompts(signal?: AbortSignal): Promise<McpPromptInfo[]> {
    const client = await this.feature('prompts', signal);
    const prompts = await allPages((cursor) => client.listPrompts(cursor ? { cursor } : undefined, { signal, timeout: this.timeoutMs }), (p) => p.prompts);
    return prompts.map((p) => ({
      name: p.name,
      ...(p.title ? { title: p.title } : {}),
      ...(p.description ? { description: p.description } : {}),
      arguments: (p.arguments ?? []).map((a) => ({ name: a.name, ...(a.description ? { description: a.description } : {}), required: a.required === true })),
    }));
  }

  /** One prompt with its arguments filled in (`prompts/get`): its messages as text, media as parts. */
  async getPrompt(name: string, args: Record<string, string>, signal?: AbortSignal): Promise<McpPromptResult> {
    const client = await this.feature('prompts', signal);
    try {
      const result = await client.getPrompt({ name, arguments: args }, { signal, timeout: this.timeoutMs });
      return {
        ...(result.description ? { description: result.description } : {}),
        messages: result.messages.map((m) => {
          const r = toToolResult({ content: [m.content as { type: string }] }, `${this.name}/${name}`);
          return { role: m.role, content: r.content, ...(r.parts ? { parts: r.parts } : {}) };
        }),
      };
    } catch (error) {
      throw this.requestFailed(`get the prompt ${name}`, error);
    }
  }

  /** Runs the OAuth sign-in now (the person is reachable through the hooks' authorizer), then connects. */
  async login(options: { force?: boolean; signal?: AbortSignal } = {}): Promise<McpServerStatus> {
    if (this.entry.error) throw this.entry.error;
    if (!this.usesOAuth) {
      throw new OryxError('ORYX_E_MCP_AUTH_UNSUPPORTED', `MCP server "${this.name}" does not sign in with OAuth (${this.kind === 'stdio' ? 'it is a stdio server' : this.entry.config.oauth === false ? 'its entry says oauth: false' : 'its entry sends a fixed Authorization header'})`, {
        hint: this.kind === 'stdio' ? 'Give a stdio server its credentials in env: instead.' : 'Remove the Authorization header (or oauth: false) from its entry to sign in with OAuth.',
      });
    }
    const session = await this.oauthSession();
    if (options.force) await session.logout();
    // A failed or waiting start must not block a sign-in.
    await this.teardown();
    this.state = 'idle';
    this.retryAt = 0;
    this.reason = undefined;
    this.error = undefined;
    await this.ready(options.signal);
    this.signedIn = await session.signedIn();
    return this.status();
  }

  /** Revokes and deletes the stored tokens. */
  async logout(): Promise<{ removed: boolean; revoked: number; revocationError?: string }> {
    if (!this.usesOAuth) return { removed: false, revoked: 0 };
    const result = await (await this.oauthSession()).logout();
    this.signedIn = false;
    await this.teardown();
    if (this.state === 'ready') this.state = 'idle';
    return result;
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

  private async feature(feature: 'resources' | 'prompts', signal?: AbortSignal): Promise<Client> {
    await this.ready(signal);
    if (!this.features?.[feature]) {
      throw new OryxError('ORYX_E_MCP_FEATURE_UNSUPPORTED', `MCP server "${this.name}" offers no ${feature} (it did not declare the ${feature} capability)`, {
        hint: `Use oryx mcp tools ${this.name} for what it offers.`,
      });
    }
    return this.client!;
  }

  private requestFailed(what: string, error: unknown): OryxError {
    if (isOryxError(error)) return error;
    const kind = classify(error);
    return new OryxError('ORYX_E_MCP_REQUEST_FAILED', `MCP server "${this.name}" could not ${what}: ${errorMessage(error).replace(/^MCP error -?\d+: /, '')}`, {
      cause: error, retryable: kind === 'timeout' || kind === 'lost' || kind === 'cut',
      hint: kind === 'protocol' ? 'Check the name or URI against oryx mcp resources / oryx mcp prompts.' : `Read ${this.logFile}.`,
    });
  }

  private async oauthSession(): Promise<OAuthSession> {
    if (!this.session) {
      const [{ OAuthSession }, { sandboxedFetch }] = await Promise.all([import('./auth/oauth.ts'), import('./http-fetch.ts')]);
      const c = this.entry.config;
      this.session = new OAuthSession({
        server: this.name,
        url: c.url!,
        ...(c.oauth ? { config: c.oauth } : {}),
        store: this.deps.tokens,
        oauthFetch: sandboxedFetch(this.deps.ctx, `${this.origin} (sign-in)`),
        authorizer: () => this.deps.hooks.authorizer,
        clientVersion: this.deps.clientVersion,
      });
      this.signedIn = await this.session.signedIn().catch(() => false);
    }
    return this.session;
  }

  private async start(): Promise<void> {
    this.state = 'connecting';
    const attempt = ++this.attempt;
    const ms = this.entry.config.connectTimeoutMs ?? this.deps.connectTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    // A browser sign-in waits on a person: the connect timeout does not cover it.
    const signingIn = () => !!this.deps.hooks.authorizer && this.usesOAuth;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        if (signingIn()) return;
        reject(new OryxError('ORYX_E_MCP_CONNECT_TIMEOUT', `MCP server "${this.name}" did not finish the MCP handshake within ${ms} ms`, {
          retryable: true, hint: 'Raise connectTimeoutMs for it, or read its log to see why it is slow.',
        }));
      }, ms);
    });
    try {
      await Promise.race([this.open(attempt, signingIn() ? 3_600_000 : ms), timeout]);
      if (this.shuttingDown) throw new OryxError('ORYX_E_MCP_UNAVAILABLE', 'shut down while connecting');
      this.state = 'ready';
      this.reason = undefined;
      this.error = undefined;
      this.failures = 0;
      this.retryAt = 0;
      if (this.session) this.signedIn = await this.session.signedIn();
    } catch (error) {
      this.attempt++; // an open() still running for this attempt tears down what it creates
      const log = this.log;
      this.log = undefined; // kept open for the reason, written below
      // A server that failed its start gets no grace period: it is ended at once.
      await this.teardown({ graceful: false });
      const failure = this.startFailure(error);
      if (log) {
        this.writeLog(log, `not started: ${failure.message}`, 'oryxos');
        await new Promise<void>((resolve) => { if (log.writableEnded) resolve(); else log.end(resolve); });
      }
      if (this.shuttingDown) throw failure;
      this.failures++;
      // A sign-in is needed: trying again before it happened gives the same answer, so no backoff then.
      this.retryAt = failure.code === 'ORYX_E_MCP_AUTH_REQUIRED' ? 0 : Date.now() + this.backoff();
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
    // The log first: a start the sandbox refuses is written there too, with why.
    const log = await this.openLog();
    if (stale()) { endLog(log); throw abandoned(); }
    this.log = log;
    let launch: ExecLaunch | undefined;
    if (this.kind !== 'stdio') await enforceAction(this.deps.ctx, this.action, { origin: this.origin });
    else {
      const { kind: _, ...request } = this.action as Extract<SandboxAction, { kind: 'exec' }>;
      launch = await prepareExec(this.deps.ctx, request, { origin: this.origin });
      if (launch.confined) this.writeLog(log, 'confined by the sandbox', 'oryxos');
    }
    const [{ Client }, { ElicitRequestSchema, LoggingMessageNotificationSchema }, transport] = await Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      import('@modelcontextprotocol/sdk/types.js'),
      this.createTransport(launch, log),
    ]);
    if (stale()) {
      if (this.log === log) this.log = undefined;
      endLog(log);
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
    const elicit = this.deps.hooks.onElicit;
    const client: Client = new Client({ name: 'oryxos', version: this.deps.clientVersion }, {
      // Elicitation is declared only when the host can ask a person (the spec: no capability, no requests).
      ...(elicit ? { capabilities: { elicitation: { form: { applyDefaults: true } } } } : {}),
      // Output schemas are not enforced: the model gets the content as text, and a server's
      // schema would otherwise be compiled and run with native regular expressions.
      jsonSchemaValidator: { getValidator: () => (input: unknown) => ({ valid: true, data: input as never, errorMessage: undefined }) },
      listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged: () => { if (this.client === client) this.toolsStale = true; } } },
    });
    if (elicit) {
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        const handler = this.deps.hooks.onElicit;
        try {
          const answer = handler ? await handler(this.name, request.params as never, { calls: [...this.calls] }) : undefined;
          return (answer ?? { action: 'cancel' }) as { [key: string]: unknown; action: 'accept' | 'decline' | 'cancel' };
        } catch (error) {
          this.deps.ctx.log.warn(`server "${this.name}": the elicitation handler failed (${errorMessage(error)}); the server gets cancel`);
          return { action: 'cancel' } as { [key: string]: unknown; action: 'cancel' };
        }
      });
    }
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      const { level, logger, data } = n.params;
      this.writeLog(log, `${level}${logger ? ` ${logger}` : ''}: ${typeof data === 'string' ? data : JSON.stringify(data)}`);
    });
    this.client = client;
    this.transport = transport;
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
    if (this.kind === 'stdio' && pid) this.pids.push(pid);
    const caps = client.getServerCapabilities() ?? {};
    this.features = { resources: !!caps.resources, prompts: !!caps.prompts, logging: !!caps.logging };
    this.writeLog(log, `connected${pid ? ` to pid ${pid}` : ''} (${client.getServerVersion()?.name ?? 'unnamed server'} ${client.getServerVersion()?.version ?? ''}`.trimEnd() + ')', 'oryxos');
    const tools = await fetchTools(client, guard, { ...this.deps, connectTimeoutMs: timeoutMs });
    if (stale()) throw abandoned();
    await this.setTools(tools);
    if (stale()) throw abandoned();
  }

  /** The server's log, opened for this start: every start writes one, whatever the command. */
  private async openLog(): Promise<WriteStream> {
    await mkdir(this.deps.logDir, { recursive: true });
    const log = createWriteStream(this.logFile, { flags: 'a' });
    log.on('error', (error) => this.deps.ctx.log.debug(`cannot write ${this.logFile}: ${errorMessage(error)}`));
    const c = this.entry.config;
    const what = this.kind === 'stdio' ? [this.command, ...(c.args ?? [])].join(' ') : `${this.kind} ${c.url}`;
    this.writeLog(log, `starting ${what}`, 'oryxos');
    return log;
  }

  /** One line of the server's log, secrets masked. */
  private writeLog(log: WriteStream | undefined, line: string, who = 'server'): void {
    if (log && !log.writableEnded) log.write(this.deps.ctx.secrets.mask(`[${new Date().toISOString()}] ${who}: ${line}\n`));
  }

  private async createTransport(launch: ExecLaunch | undefined, log: WriteStream): Promise<Transport> {
    const c = this.entry.config;
    if (this.kind !== 'stdio') {
      const { watchedFetch } = await import('./http-fetch.ts');
      const session = this.usesOAuth ? await this.oauthSession() : undefined;
      const base = session ? session.wrap((url, init) => fetch(url, init)) : (url: string | URL, init?: RequestInit) => fetch(url, init);
      const fetchFn = watchedFetch(this.deps.maxMessageBytes, () => this.guard, base);
      const requestInit = { headers: c.headers ?? {} };
      if (this.kind === 'sse') {
        const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js');
        return new SSEClientTransport(new URL(c.url!), { requestInit, fetch: fetchFn });
      }
      const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
      return new StreamableHTTPClientTransport(new URL(c.url!), { requestInit, fetch: fetchFn });
    }
    const [{ StdioClientTransport }, { LinearReadBuffer }] = await Promise.all([import('@modelcontextprotocol/sdk/client/stdio.js'), import('./read-buffer.ts')]);
    // Exactly what the sandbox returned: the program (under bubblewrap when confined) with the
    // minimal environment plus what exec.env allows. The SDK adds HOME, LOGNAME, PATH, SHELL,
    // TERM and USER from this process, which the minimal environment holds already.
    const transport = new StdioClientTransport({
      command: launch!.file, args: launch!.args, env: launch!.env, cwd: launch!.cwd, stderr: 'pipe', maxBufferSize: this.deps.maxMessageBytes,
    });
    replaceReadBuffer(transport, new LinearReadBuffer(this.deps.maxMessageBytes));
    // Whole lines, secrets masked (a server may print its own arguments or token); a line without end is cut at 64 KiB.
    let partial = '';
    const mask = (text: string) => this.deps.ctx.secrets.mask(text);
    transport.stderr?.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop()!.slice(-65_536);
      if (!lines.length) return;
      if (!log.writableEnded) log.write(mask(`${lines.join('\n')}\n`));
      this.stderrTail = [...this.stderrTail, ...lines.map((l) => mask(l)).filter((l) => l.trim())].slice(-TAIL_LINES);
    });
    return transport;
  }

  /**
   * Keeps the tools the server's `tools:` allow-list lets through. Each input schema is
   * compiled once (the event loop given a turn between them); a tool whose schema is invalid
   * is left out, named with why in the status and the log. A list longer than
   * {@link EAGER_SCHEMAS} is checked tool by tool when an agent is given one ({@link usable}):
   * compiling ten thousand schemas for the three an agent lists would hold every start.
   */
  private async setTools(tools: RawTool[]): Promise<void> {
    const exposed = new Map<string, RawTool>();
    for (const t of tools) {
      if (!toolAllowed(this.entry.config.tools, t.name)) continue;
      const name = exposedName(this.name, t.name);
      if (exposed.has(name)) {
        this.deps.ctx.log.warn(`server "${this.name}" has tools "${exposed.get(name)!.name}" and "${t.name}", which both become ${name}; only the first is offered`);
        continue;
      }
      exposed.set(name, t);
    }
    this.exposed = exposed;
    this.refused = [];
    this.checked = new Set();
    if (exposed.size <= EAGER_SCHEMAS) await this.check([...exposed.keys()]);
    this.toolsStale = false;
  }

  /** Compiles the schemas of these tools not checked yet; a tool with an invalid one is left out. */
  private async check(names: string[]): Promise<void> {
    let slice = performance.now();
    for (const name of names) {
      const t = this.exposed.get(name);
      if (!t || this.checked.has(name)) continue;
      this.checked.add(name);
      try {
        const { unchecked } = await compileToolSchema(t.inputSchema, `tool "${t.name}" of MCP server "${this.name}"`);
        if (unchecked.length) this.deps.ctx.log.warn(`server "${this.name}": ${uncheckedNote(t.name, unchecked)}`);
      } catch (error) {
        this.refused.push(errorMessage(error));
        this.exposed.delete(name);
        this.deps.ctx.log.warn(`server "${this.name}": ${errorMessage(error)}; the tool is left out`);
      }
      if (performance.now() - slice > 10) { await new Promise((resolve) => setImmediate(resolve)); slice = performance.now(); }
    }
  }

  /** Of these tools, the ones whose input schema compiles (checked now if not yet). */
  async usable(tools: McpToolInfo[]): Promise<McpToolInfo[]> {
    await this.check(tools.map((t) => t.exposed));
    return tools.filter((t) => this.exposed.has(t.exposed));
  }

  /** The server forgot the session (HTTP 404): a new one, without counting a failure. */
  private async renewSession(client: Client): Promise<void> {
    if (client !== this.client) return;
    await this.teardown({ why: 'the server no longer knew the session (HTTP 404)' });
    if (this.state === 'ready') this.state = 'idle';
  }

  /** The connection went away (crash, exit, network): remember why; the next use starts it again. */
  private async lost(client: Client, error: unknown): Promise<void> {
    if (client !== this.client || this.state !== 'ready') return;
    await new Promise((resolve) => setImmediate(resolve)); // the last stderr lines arrive just after the close
    if (client !== this.client) return;
    this.state = 'closed';
    this.failures++;
    this.retryAt = Date.now() + this.backoff();
    this.reason = `${error ? errorMessage(error) : this.guard?.oversize ?? 'the server closed the connection'}${stderrNote(this.stderrTail)}`;
    this.error = new OryxError('ORYX_E_MCP_UNAVAILABLE', `MCP server "${this.name}" went away: ${this.reason}`, { retryable: true });
    this.deps.ctx.log.warn(`server "${this.name}" went away (${this.reason}); it is restarted on next use`);
    await this.teardown({ why: this.reason });
  }

  private async teardown(options: { graceful?: boolean; why?: string } = {}): Promise<void> {
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
    if (log && !log.writableEnded) {
      this.writeLog(log, `disconnected${options.why ? `: ${options.why}` : ''}`, 'oryxos');
      await new Promise<void>((resolve) => log.end(resolve));
    }
  }

  private startFailure(error: unknown): OryxError {
    const logFile = path.relative(process.cwd(), this.logFile) || this.logFile;
    const tail = stderrNote(this.stderrTail);
    const url = this.entry.config.url ?? '';
    if (isOryxError(error)) {
      if (error.code === 'ORYX_E_SANDBOX_DENIED') {
        return new OryxError(error.code, `MCP server "${this.name}" may not be ${this.kind === 'stdio' ? 'started' : 'reached'}: ${error.message}`, { cause: error, hint: error.hint });
      }
      return new OryxError(error.code, `${error.message}${tail}`, { cause: error, hint: error.hint ?? `Read ${logFile}.`, retryable: error.retryable });
    }
    if (this.kind !== 'stdio') {
      const { why, needsLogin } = describeRemoteFailure(error, url, this.kind);
      if (needsLogin && this.usesOAuth) {
        if (this.session) this.session.needsLogin = true;
        return new OryxError('ORYX_E_MCP_AUTH_REQUIRED', `MCP server "${this.name}" needs authorization: ${why}`, {
          cause: error, hint: `Run oryx mcp login ${this.name} to sign in once in a browser.`,
        });
      }
      const hint = needsLogin
        ? `It refused the Authorization header its entry sends: check that header (or drop it and run oryx mcp login ${this.name}).`
        : httpStatus(error) !== undefined ? `Check the url of "${this.name}".` : `Check that the server at ${url} is running and reachable.`;
      return new OryxError('ORYX_E_MCP_UNAVAILABLE', `MCP server "${this.name}" could not be reached: ${why}`, { cause: error, hint, retryable: true });
    }
    const e = error as NodeJS.ErrnoException;
    let why = errorMessage(error);
    if (e?.code === 'ENOENT') why = `the command "${this.entry.config.command}" was not found`;
    else if ((error as { name?: string })?.name === 'McpError' && (error as { code?: number }).code === -32000) {
      why = this.startedPid ? `the server process ran (pid ${this.startedPid}) and exited during start-up, before it finished the MCP handshake` : 'the server exited during startup';
    }
    return new OryxError('ORYX_E_MCP_UNAVAILABLE', `MCP server "${this.name}" could not be started: ${why}${tail}`, {
      cause: error, hint: `Check its command and read ${logFile}.`, retryable: true,
    });
  }

  /** The first retry is immediate; after that base × 2ⁿ, capped. */
  private backoff(): number {
    if (this.failures <= 1) return 0;
    return Math.min(this.deps.maxDelayMs, this.deps.baseDelayMs * 2 ** (this.failures - 2));
  }
}

/** A resource as `oryx mcp resources` shows it. */
export interface McpResourceInfo { uri: string; name: string; title?: string; description?: string; mimeType?: string; size?: number }
/** A resource template (RFC 6570 URI template). */
export interface McpResourceTemplateInfo { uriTemplate: string; name: string; title?: string; description?: string; mimeType?: string }
/** A prompt and its arguments. */
export interface McpPromptInfo { name: string; title?: string; description?: string; arguments: { name: string; description?: string; required: boolean }[] }
/** A prompt filled in: its messages as text, media as parts. */
export interface McpPromptResult { description?: string; messages: { role: 'user' | 'assistant'; content: string; parts?: McpToolResult['parts'] }[] }

function pickResource(r: { uri: string; name: string; title?: string; description?: string; mimeType?: string; size?: number }): McpResourceInfo {
  return { uri: r.uri, name: r.name, ...(r.title ? { title: r.title } : {}), ...(r.description ? { description: r.description } : {}), ...(r.mimeType ? { mimeType: r.mimeType } : {}), ...(r.size !== undefined ? { size: r.size } : {}) };
}

function pickTemplate(r: { uriTemplate: string; name: string; title?: string; description?: string; mimeType?: string }): McpResourceTemplateInfo {
  return { uriTemplate: r.uriTemplate, name: r.name, ...(r.title ? { title: r.title } : {}), ...(r.description ? { description: r.description } : {}), ...(r.mimeType ? { mimeType: r.mimeType } : {}) };
}

function endLog(log: WriteStream): void {
  if (!log.writableEnded) log.end();
}

/** Every item of a paginated list, bounded by {@link MAX_PAGES}. */
async function allPages<P extends { nextCursor?: string }, T>(page: (cursor?: string) => Promise<P>, items: (p: P) => T[]): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    if (++pages > MAX_PAGES) throw new Error(`the list has more than ${MAX_PAGES} pages`);
    const p = await page(cursor);
    out.push(...items(p));
    cursor = p.nextCursor;
  } while (cursor);
  return out;
}

/**
 * Every tool of the server, following pagination, within the limit on the whole list's size:
 * more than `maxToolListChars` characters of JSON refuses the list, naming the limit. How many
 * tools an agent gets is decided later, after its `tools:` list (`limits.maxTools`).
 */
async function fetchTools(client: Client, guard: GuardedTransport | undefined, limits: Pick<ServerDeps, 'connectTimeoutMs' | 'maxToolListChars'>, signal?: AbortSignal): Promise<RawTool[]> {
  let chars = 0;
  return allPages(async (cursor) => {
    const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: limits.connectTimeoutMs, signal });
    // Each tool with the input schema the server sent (the SDK saw a placeholder).
    const listed = page.tools.map((t) => ({ ...t, inputSchema: (guard?.inputSchema(t.name) ?? t.inputSchema) as RawTool['inputSchema'] })) as RawTool[];
    for (const t of listed) chars += JSON.stringify(t).length;
    if (chars > limits.maxToolListChars) throw new Error(`the server's tool list is more than ${limits.maxToolListChars} characters of JSON (limits.maxToolListChars)`);
    return { tools: listed, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  }, (p) => p.tools);
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
