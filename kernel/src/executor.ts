import { ApprovalPending, approvedActions, askFirst, asksByRule } from './approval.ts';
import { BudgetExceeded } from './budget.ts';
import { OryxError, errorMessage, isOryxError } from './errors.ts';
import { tapped, type ToolResultInfo } from './hooks.ts';
import type { Kernel } from './kernel.ts';
import { cutText } from './prompt.ts';
import { enforceAction, prepareExec } from './sandbox-gate.ts';
import { checkToolArgs } from './tool-schema.ts';
import type { Approval, ApprovalAsk, RunContext, SandboxAction, SandboxContext, Tool, ToolCall, ToolContext, ToolMessage, ToolResult } from './types.ts';

/**
 * What running one call gave: its result and message, or `waiting` when it waits for a
 * person (`approval`: the one stored for it; absent for a call held back because another call
 * of the response is waiting). A waiting call has no result and is not seen by `afterTool`.
 */
export type CallOutcome = { message: ToolMessage; result: ToolResult } | { waiting: true; approval?: Approval };

export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;

/**
 * Runs one tool call: look up → parse check → validate → `beforeTool` → sandbox → execute
 * (with a time limit) → output cap and secrets masked → `afterTool` → a structured tool
 * message. Nothing escapes: every failure, a throwing hook tap included, becomes an `isError`
 * result the model sees and `afterTool` (the audit) records.
 */
export class ToolExecutor {
  constructor(private readonly kernel: Kernel) {}

  /**
   * `index` is the call's place in the model's response: calls past `max_tool_calls_per_step`
   * do not run. `instead` is a result the kernel gives the call without running it (loop
   * detection, the run budget, a denied approval); it is recorded by `afterTool` like any other.
   */
  async execute(call: ToolCall, run: RunContext, tools: Map<string, Tool>, index = 0, instead?: ToolResult): Promise<CallOutcome> {
    const started = performance.now();
    const tool = tools.get(call.name);
    const { max_tool_calls_per_step: maxCalls, max_tool_output_chars: maxChars } = run.agent.settings;
    let result: ToolResult;
    try {
      result = instead ?? (index < maxCalls ? await this.run(call, run, tool, tools) : fail(index === maxCalls
        ? `Not run: at most ${maxCalls} tool calls of one response run (max_tool_calls_per_step); this one and the rest were skipped. Call again in your next step what is still needed.`
        : 'Not run (over max_tool_calls_per_step).'));
      if (typeof result?.content !== 'string') result = fail(`${call.name} returned no text result`);
    } catch (error) {
      if (error instanceof ApprovalPending) return { waiting: true, ...(error.approval ? { approval: error.approval } : {}) };
      result = fail(`${call.name} failed: ${errorMessage(error)}`);
    }
    // What the model sees is what is stored and audited: secrets masked, then cut to the cap.
    const content = this.kernel.secrets.mask(result.content);
    result = content.length > maxChars
      ? { ...result, content: cutText(content, maxChars, 'over max_tool_output_chars'), fullChars: content.length }
      : { ...result, content };
    const { afterTool } = this.kernel.hooks;
    if (tapped(afterTool)) {
      const info: ToolResultInfo = {
        run, call, tool, status: result.denied !== undefined ? 'denied' : result.isError ? 'error' : 'ok', durationMs: Math.round(performance.now() - started),
      };
      try {
        result = await afterTool.promise(result, info);
      } catch (error) {
        // The tap that threw may have come before the audit: record the failure as the result.
        result = fail(`${call.name}: the result was lost: ${errorMessage(error)}`);
        await afterTool.promise(result, { ...info, status: 'error' })
          .catch((again) => this.kernel.log.warn(`afterTool failed twice for ${call.name}: ${errorMessage(again)}`));
      }
    }
    return {
      result,
      message: { role: 'tool', toolCallId: call.id, name: call.name, content: result.content, ...(result.isError ? { isError: true } : {}) },
    };
  }

  private async run(call: ToolCall, run: RunContext, tool: Tool | undefined, tools: Map<string, Tool>): Promise<ToolResult> {
    if (!tool) {
      const names = [...tools.keys()];
      return fail(`Unknown tool "${call.name}". ${names.length ? `Available tools: ${names.join(', ')}.` : 'This agent has no tools.'}`);
    }
    if (call.argsError !== undefined) {
      return fail(`The arguments for ${call.name} were not valid JSON (${call.argsError}). Call it again with a JSON object that matches its schema.`);
    }
    // A tool's own validate is synchronous: no await (a microtask per call) on that path.
    const problem = tool.validate ? tool.validate(call.args) : await checkToolArgs(tool, call.args);
    if (problem) return fail(`Invalid arguments for ${call.name}: ${problem}. Fix them and call again.`);

    if (run.signal.aborted) return fail(`Not run: ${abortedWhy(run.signal)}`);
    if (tapped(this.kernel.hooks.beforeTool)) {
      const bail = await this.kernel.hooks.beforeTool.promise({ run, call, tool });
      if (bail) return bail;
    }

    const { kernel } = this;
    const cancel = new CallCancel(run.signal);
    const gate: SandboxContext = { run, toolCallId: call.id, origin: `tool ${call.name}` };
    // The grant is read when an action is checked: before askFirst none or a resumed call's,
    // after it what the person approved.
    const enforce = (action: SandboxAction) => enforceAction(kernel, action, { ...gate, approvedActions: approvedActions(run, call.id) });
    const ctx: ToolContext = {
      agent: run.agent,
      sessionId: run.sessionId,
      iteration: run.iteration,
      toolCallId: call.id,
      get signal() { return cancel.signal; },
      enforce,
      launch: (request) => prepareExec(kernel, request, { ...gate, approvedActions: approvedActions(run, call.id) }),
      service: (name) => kernel.service(name),
    };
    const timeoutMs = tool.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    watchAbort(run.signal, cancel);
    try {
      // Each declared action passes the sandbox; those that ask wait for a person (or a rule
      // asks), who decides before anything happens. A resumed call holds its approval already.
      const asks: ApprovalAsk[] = [];
      const actions = tool.actions ? await tool.actions(call.args, ctx) : undefined;
      for (const action of actions ?? []) {
        try {
          await enforce(action);
        } catch (error) {
          if (!isOryxError(error) || error.code !== 'ORYX_E_SANDBOX_ASK') throw error;
          asks.push({ action, reason: String(error.data?.reason) });
        }
      }
      if (asks.length || asksByRule(run, tool)) {
        const refused = await askFirst(kernel, run, call, tool, asks);
        if (refused) return refused;
        for (const { action } of asks) await enforce(action!);
      }
      // One promise settles the call: the tool's result, its time limit, or the run's abort.
      const out = await new Promise<ToolResult | string>((resolve, reject) => {
        timer = setTimeout(() => {
          reject(new OryxError('ORYX_E_TOOL_TIMEOUT', `${call.name} timed out after ${timeoutMs} ms and was cancelled`, { retryable: true }));
          cancel.abort();
        }, timeoutMs);
        cancel.stop = () => reject(new OryxError('ORYX_E_RUN_ABORTED', `Aborted: ${abortedWhy(run.signal)}`));
        if (run.signal.aborted) cancel.runAborted();
        Promise.resolve(tool.execute(call.args, ctx)).then(resolve, reject);
      });
      return typeof out === 'string' ? { content: out, isError: false } : out;
    } catch (error) {
      if (error instanceof ApprovalPending) throw error;
      if (isOryxError(error) && (error.code === 'ORYX_E_SANDBOX_DENIED' || error.code === 'ORYX_E_SANDBOX_ASK')) {
        const reason = String(error.data?.reason ?? error.message);
        const midway = error.code === 'ORYX_E_SANDBOX_ASK'
          ? '; a person can only be asked before a call starts, and this action came up while it ran' : '';
        return { content: `Denied by the sandbox: ${reason}${midway}`, isError: true, denied: reason };
      }
      if (isOryxError(error) && (error.code === 'ORYX_E_TOOL_TIMEOUT' || error.code === 'ORYX_E_RUN_ABORTED')) {
        return { content: error.message, isError: true, retryable: error.retryable };
      }
      return {
        content: `${call.name} failed: ${errorMessage(error)}`,
        isError: true,
        retryable: isOryxError(error) ? error.retryable : false,
      };
    } finally {
      clearTimeout(timer);
      unwatchAbort(run.signal, cancel);
    }
  }
}

/**
 * A call's own cancellation. Its signal is made only when the tool reads `ctx.signal` (most
 * tools never do); it follows the run's signal, and is aborted when the call's time is up.
 */
class CallCancel {
  private controller?: AbortController;
  /** Set when the call was aborted before anyone read its signal. */
  private early?: { reason: unknown };
  /** Set while the tool runs: ends the call with ORYX_E_RUN_ABORTED. */
  stop?: () => void;

  constructor(private readonly run: AbortSignal) {}

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.early) this.controller.abort(this.early.reason);
      else if (this.run.aborted) this.controller.abort(this.run.reason);
    }
    return this.controller.signal;
  }

  /** Aborts the call's signal (`reason` undefined: an AbortError, as `AbortController.abort()` gives). */
  abort(reason?: unknown): void {
    if (this.controller) this.controller.abort(reason);
    else this.early ??= { reason };
  }

  /** The run's signal fired: the call ends, and its signal fires with the run's reason. */
  runAborted(): void {
    this.stop?.();
    this.abort(this.run.reason);
  }
}

/**
 * The calls running on a run's signal: one `abort` listener per signal (added with its first
 * call) reaches them all, instead of a listener added and removed per call.
 */
const watching = new WeakMap<AbortSignal, Set<CallCancel>>();

function watchAbort(signal: AbortSignal, cancel: CallCancel): void {
  let calls = watching.get(signal);
  if (!calls) {
    const set = calls = new Set();
    watching.set(signal, set);
    signal.addEventListener('abort', () => { for (const c of [...set]) c.runAborted(); }, { once: true });
  }
  calls.add(cancel);
}

function unwatchAbort(signal: AbortSignal, cancel: CallCancel): void {
  watching.get(signal)?.delete(cancel);
}

/** Why the run's signal fired, for the result of a call it cut short. */
function abortedWhy(signal: AbortSignal): string {
  return signal.reason instanceof BudgetExceeded ? `the run ${signal.reason.stop.notice}` : 'the run was aborted';
}

function fail(content: string): ToolResult {
  return { content, isError: true, retryable: false };
}
