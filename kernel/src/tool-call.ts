/**
 * What one tool call runs with: its `ToolContext` (the sandbox gate, services) and its
 * cancellation — the call's own signal, its time limit and the run's abort. Made once per call
 * on the loop's hot path, so it makes nothing the call does not use: the call's AbortSignal
 * exists only once the tool reads `ctx.signal`, and the run's abort reaches the call through
 * the run ({@link onRunAbort}), not through an `abort` listener added and removed per call.
 */
import { approvedActions } from './approval.ts';
import { BudgetExceeded } from './budget.ts';
import { deadline, type Deadline } from './deadlines.ts';
import { OryxError } from './errors.ts';
import type { Kernel } from './kernel.ts';
import { offRunAbort, onRunAbort, runAborted } from './run-state.ts';
import { enforceAction, prepareExec } from './sandbox-gate.ts';
import type {
  AgentDefinition, ExecLaunch, ExecRequest, RunContext, SandboxAction, SandboxContext, Services, Tool, ToolCall, ToolContext, ToolResult,
} from './types.ts';

/**
 * One tool call's context and cancellation. `signal` is a getter on the prototype (made on
 * first read); the other fields are the call's own, so `const { enforce } = ctx` works.
 */
export class ToolCallScope implements ToolContext {
  readonly agent: AgentDefinition;
  readonly sessionId: string;
  readonly iteration: number;
  readonly toolCallId: string;
  readonly enforce = (action: SandboxAction): Promise<void> => enforceAction(this.#kernel, action, this.#gate());
  readonly launch = (request: ExecRequest): Promise<ExecLaunch> => prepareExec(this.#kernel, request, this.#gate());
  readonly service = <K extends keyof Services>(name: K): Services[K] => this.#kernel.service(name);
  readonly #kernel: Kernel;
  readonly #run: RunContext;
  readonly #call: ToolCall;
  #controller?: AbortController;
  /** Set when the call was aborted before anyone read its signal. */
  #early?: { reason: unknown };
  /** While the tool runs: ends the call with an error (its time is up, the run was aborted). */
  #fail?: (error: OryxError) => void;
  #limit?: Deadline;

  constructor(kernel: Kernel, run: RunContext, call: ToolCall) {
    this.agent = run.agent;
    this.sessionId = run.sessionId;
    this.iteration = run.iteration;
    this.toolCallId = call.id;
    this.#kernel = kernel;
    this.#run = run;
    this.#call = call;
    onRunAbort(run, this.#runAborted);
  }

  /** The call's signal: it follows the run's signal, and fires when the call's time is up. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#early) this.#controller.abort(this.#early.reason);
      else if (runAborted(this.#run)) this.#controller.abort(this.#run.signal.reason);
    }
    return this.#controller.signal;
  }

  /**
   * Runs the tool within `timeoutMs`: its result, or ORYX_E_TOOL_TIMEOUT (retryable) when its
   * time is up first, or ORYX_E_RUN_ABORTED when the run is aborted first; either way the
   * call's signal fires, and what the tool still does is ignored.
   */
  execute(tool: Tool, timeoutMs: number): Promise<ToolResult | string> {
    const { name, args } = this.#call;
    return new Promise((resolve, reject) => {
      this.#fail = reject;
      this.#limit = deadline(timeoutMs, () => {
        reject(new OryxError('ORYX_E_TOOL_TIMEOUT', `${name} timed out after ${timeoutMs} ms and was cancelled`, { retryable: true }));
        this.#abort(undefined);
      });
      if (runAborted(this.#run)) this.#runAborted();
      Promise.resolve(tool.execute(args, this)).then(resolve, reject);
    });
  }

  /** The run was aborted: the call ends (when running), and its signal fires with the run's reason. */
  readonly #runAborted = (): void => {
    const signal = this.#run.signal;
    this.#fail?.(new OryxError('ORYX_E_RUN_ABORTED', `Aborted: ${abortedWhy(signal)}`));
    this.#abort(signal.reason);
  };

  /** The call is over: its timer stops and the run's signal no longer reaches it. */
  end(): void {
    this.#limit?.cancel();
    this.#fail = undefined;
    offRunAbort(this.#run, this.#runAborted);
  }

  /** `reason` undefined: an AbortError, as `AbortController.abort()` gives. */
  #abort(reason: unknown): void {
    if (this.#controller) this.#controller.abort(reason);
    else this.#early ??= { reason };
  }

  /** The sandbox context of an action this call checks, with what a person approved for it by then. */
  #gate(): SandboxContext {
    const run = this.#run;
    const call = this.#call;
    return { run, toolCallId: call.id, origin: `tool ${call.name}`, approvedActions: approvedActions(run, call.id) };
  }
}

/** Why the run's signal fired, for the result of a call it cut short. */
export function abortedWhy(signal: AbortSignal): string {
  return signal.reason instanceof BudgetExceeded ? `the run ${signal.reason.stop.notice}` : 'the run was aborted';
}
