import type { PluginContext, RunEvent, RunInput, RunOrigin, RunResult, Runs } from '@oryxos/kernel';
import { OryxError, type Message, type Usage } from '@oryxos/provider-spec';
import type { SessionInfo } from '@oryxos/contracts';
import { webError } from './errors.ts';
import type { ClientSignal } from './incoming.ts';

/** Why a run was aborted by the web channel. */
export type AbortCause = 'timeout' | 'disconnect' | 'shutdown' | 'deleted' | 'stopped';

export interface InvokeInput {
  agent: string;
  session: string;
  message: string;
  /** The id of a suspended run (a decided approval's): continue it instead of sending a message. */
  continue?: string;
  /** Who the run acts for (the request's principal); memory scopes key on it. */
  user?: string;
  stream: boolean;
  onEvent?(event: RunEvent): void;
  /** The usage of each model call of this run, as it returns (the run's events carry none). */
  onUsage?(usage: Usage): void;
  /** Aborts when the client goes away. */
  clientSignal?: ClientSignal;
  /** The request, for the run's observers (a tracer continues the caller's trace). */
  origin?: RunOrigin;
}

/** A finished run, or the reason it was cut short (`result` is absent when it never started). */
export interface InvokeOutcome { result?: RunResult; aborted?: AbortCause }

/**
 * Runs agents for HTTP requests: a time limit per request, and the set of in-flight runs that
 * a graceful shutdown waits for or aborts. The kernel's AgentService runs one request at a
 * time per session, in arrival order; a queued request that times out or whose client leaves
 * drops out of the queue before anything is written.
 */
export class Runner {
  readonly service: Runs;
  private readonly creating = new Map<string, Promise<SessionInfo>>();
  private readonly active = new Set<{ controller: AbortController; session: string }>();
  /** Who hears the model calls' usage of the run going on in a session (the kernel runs one at a time per session). */
  private readonly usageListeners = new Map<string, (usage: Usage) => void>();
  private idle?: () => void;
  closing = false;

  constructor(private readonly kernel: PluginContext, private readonly timeoutMs: number) {
    this.service = kernel.runs;
  }

  get inFlight(): number { return this.active.size; }

  /** A model call of a run on `sessionId` returned (the plugin's afterLLM tap): its invoke's `onUsage` hears it. */
  noteUsage(sessionId: string, usage: Usage): void {
    this.usageListeners.get(sessionId)?.(usage);
  }

  async invoke(input: InvokeInput): Promise<InvokeOutcome> {
    if (this.closing) throw webError('ORYX_E_WEB_SHUTTING_DOWN', 'The server is shutting down and takes no new runs');
    const controller = new AbortController();
    const limit = setTimeout(() => controller.abort('timeout' satisfies AbortCause), this.timeoutMs);
    const entry = { controller, session: input.session };
    const onClientGone = () => controller.abort('disconnect' satisfies AbortCause);
    if (input.clientSignal?.aborted) onClientGone();
    input.clientSignal?.addEventListener('abort', onClientGone, { once: true });
    // A queued run's usage listener takes over the session when its run starts (its first
    // iteration), not when it is queued behind another run of the session.
    const onUsage = input.onUsage;
    const onEvent = onUsage || input.onEvent ? (e: RunEvent) => {
      if (onUsage && e.type === 'iteration') this.usageListeners.set(input.session, onUsage);
      input.onEvent?.(e);
    } : undefined;
    let work: Promise<RunResult>;
    if (input.continue) {
      work = this.service.continue(input.continue, { stream: input.stream, signal: controller.signal, ...(onEvent ? { onEvent } : {}), ...(input.origin ? { origin: input.origin } : {}) });
    } else {
      const run: RunInput = { agent: input.agent, session: input.session, message: input.message, stream: input.stream, signal: controller.signal, onEvent, door: 'web' };
      if (input.user !== undefined) run.user = input.user;
      if (input.origin) run.origin = input.origin;
      work = this.service.process(run);
    }
    this.active.add(entry);
    try {
      const result = await work;
      const cause = (controller.signal.reason as AbortCause) ?? 'disconnect';
      // Aborted before its turn came: nothing was written, so there is no result to show.
      if (result.stopReason === 'aborted' && result.iterations === 0) return { aborted: cause };
      if (result.stopReason === 'aborted') return { result, aborted: cause };
      return { result };
    } finally {
      clearTimeout(limit);
      if (onUsage && this.usageListeners.get(input.session) === onUsage) this.usageListeners.delete(input.session);
      input.clientSignal?.removeEventListener('abort', onClientGone);
      this.active.delete(entry);
      if (this.active.size === 0) {
        const idle = this.idle;
        this.idle = undefined;
        idle?.();
      }
    }
  }

  /**
   * Opens a session by id, creating it (for `agent`) when it does not exist yet; concurrent
   * callers with the same new id get the same session. `seed` is appended only on creation.
   */
  async openOrCreate(id: string, agent: string, seed: () => Message[]): Promise<{ session: SessionInfo; created: boolean }> {
    const store = this.kernel.service('sessions');
    const pending = this.creating.get(id);
    if (pending) return { session: await pending, created: false };
    const existing = await store.get(id);
    if (existing) {
      if (existing.agent !== agent) {
        throw new OryxError('ORYX_E_SESSION_AGENT_MISMATCH', `Session "${id}" belongs to agent "${existing.agent}", not "${agent}"`, {
          hint: `Send it to agent ${existing.agent}, or start a new session.`,
        });
      }
      return { session: existing, created: false };
    }
    const again = this.creating.get(id);
    if (again) return { session: await again, created: false };
    const creating = (async () => {
      const messages = seed();
      const session = await store.create({ agent, id });
      if (messages.length) await store.append(id, messages);
      return session;
    })();
    this.creating.set(id, creating);
    try {
      return { session: await creating, created: true };
    } finally {
      this.creating.delete(id);
    }
  }

  /**
   * Aborts this channel's runs on a session (running or queued): because it is being deleted
   * (their clients get 410 ORYX_E_WEB_SESSION_DELETED) or stopped (409 ORYX_E_WEB_STOPPED).
   * Returns how many were aborted.
   */
  abortSession(sessionId: string, cause: 'deleted' | 'stopped' = 'deleted'): number {
    const runs = [...this.active].filter((run) => run.session === sessionId);
    for (const run of runs) run.controller.abort(cause satisfies AbortCause);
    return runs.length;
  }

  /**
   * Stops taking runs, lets the in-flight ones finish for up to `graceMs`, then aborts the
   * rest and waits (at most `abortWaitMs`) for them to wind down.
   */
  async drain(graceMs: number, abortWaitMs = 5_000): Promise<{ finished: number; aborted: number }> {
    this.closing = true;
    const before = this.active.size;
    await this.waitIdle(graceMs);
    const left = [...this.active];
    for (const run of left) run.controller.abort('shutdown' satisfies AbortCause);
    await this.waitIdle(abortWaitMs);
    return { finished: before - left.length, aborted: left.length };
  }

  private waitIdle(ms: number): Promise<void> {
    if (this.active.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() { clearTimeout(timer); resolve(); }
      const previous = this.idle;
      this.idle = () => { previous?.(); done(); };
    });
  }
}
