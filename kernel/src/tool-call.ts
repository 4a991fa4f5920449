import type { ExecLaunch, ExecRequest, SandboxAction, SandboxContext, Services } from '@oryxos/contracts';
import { OryxError, type ToolCall } from '@oryxos/provider-spec';
import { BudgetExceeded, follow } from '@oryxos/stop-rules';
import type { Kernel } from './kernel.ts';
import { enforceAction, prepareExec } from '@oryxos/sandbox-gate';
import type { Answer, Question, RunContext, Tool, ToolContext, ToolResult } from './types.ts';

/**
 * One tool call's context and cancellation: its signal follows the run's and fires when its
 * time is up; a progress report starts its time again (the run's own deadline still holds).
 */
export class ToolCallScope implements ToolContext {
  readonly run: RunContext;
  readonly toolCallId: string;
  private readonly controller = new AbortController();
  private readonly unfollow: () => void;
  private timer?: NodeJS.Timeout;
  private restart?: () => void;

  constructor(
    private readonly kernel: Kernel,
    run: RunContext,
    private readonly call: ToolCall,
    private readonly approved: SandboxAction[],
    private readonly given: Record<string, string>,
    private readonly onProgress: (update: { message?: string; progress?: number; total?: number }) => void,
  ) {
    this.run = run;
    this.toolCallId = call.id;
    this.unfollow = follow(run.signal, this.controller);
  }

  get signal(): AbortSignal { return this.controller.signal; }

  /**
   * The headers `beforeTool` taps put on the call (a tracing plugin's `traceparent`): the scope
   * exists before those taps run (a tool's `actions` get it), so they are read when asked for.
   */
  get headers(): Readonly<Record<string, string>> { return Object.freeze({ ...this.given }); }

  enforce = (action: SandboxAction): Promise<void> => enforceAction(this.kernel, action, this.gate());
  launch = (request: ExecRequest): Promise<ExecLaunch> => prepareExec(this.kernel, request, this.gate());
  service = <K extends keyof Services>(name: K): Services[K] => this.kernel.service(name);
  ask = (question: Question): Promise<Answer | undefined> => this.kernel.askPerson(this.run, question);

  progress = (update: { message?: string; progress?: number; total?: number }): void => {
    this.restart?.();
    this.onProgress(update);
  };

  /**
   * Runs the tool within `timeoutMs` (counted again from each progress report): its result, or
   * ORYX_E_TOOL_TIMEOUT (retryable) when its time is up first, or ORYX_E_RUN_ABORTED when the
   * run is aborted first; either way the call's signal fires, and what the tool still does is
   * ignored.
   */
  execute(tool: Tool, timeoutMs: number): Promise<ToolResult | string> {
    return new Promise((resolve, reject) => {
      const timeUp = () => {
        reject(new OryxError('ORYX_E_TOOL_TIMEOUT', `${this.call.name} timed out after ${timeoutMs} ms without progress and was cancelled`, { retryable: true }));
        this.controller.abort();
      };
      this.restart = () => {
        clearTimeout(this.timer);
        this.timer = setTimeout(timeUp, timeoutMs);
      };
      this.restart();
      const aborted = () => reject(new OryxError('ORYX_E_RUN_ABORTED', `Aborted: ${abortedWhy(this.run.signal)}`));
      if (this.run.signal.aborted) aborted();
      else this.run.signal.addEventListener('abort', aborted, { once: true });
      Promise.resolve().then(() => tool.execute(this.call.args, this)).then(resolve, reject)
        .finally(() => this.run.signal.removeEventListener('abort', aborted));
    });
  }

  /** The call is over: its timer stops and the run's signal no longer reaches it. */
  end(): void {
    clearTimeout(this.timer);
    this.restart = undefined;
    this.unfollow();
  }

  /** The sandbox context of an action this call checks, with what a person approved for it. */
  private gate(): SandboxContext {
    return { run: this.run, agent: this.run.agent, toolCallId: this.call.id, origin: `tool ${this.call.name}`, approvedActions: this.approved };
  }
}

/** Why the run's signal fired, for the result of a call it cut short. */
export function abortedWhy(signal: AbortSignal): string {
  return signal.reason instanceof BudgetExceeded ? `the run ${signal.reason.stop.notice}` : 'the run was aborted';
}
