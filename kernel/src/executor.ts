import { ApprovalPending, approvedActions, askFirst } from './approval.ts';
import { BudgetExceeded } from './budget.ts';
import { OryxError, errorMessage, isOryxError } from './errors.ts';
import type { ToolResultInfo } from './hooks.ts';
import type { Kernel } from './kernel.ts';
import { cutText } from './prompt.ts';
import { enforceAction, prepareExec } from './sandbox-gate.ts';
import { checkToolArgs } from './tool-schema.ts';
import type { Approval, ApprovalAsk, RunContext, SandboxContext, Tool, ToolCall, ToolContext, ToolMessage, ToolResult } from './types.ts';

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
    const info: ToolResultInfo = {
      run, call, tool, status: result.denied !== undefined ? 'denied' : result.isError ? 'error' : 'ok', durationMs: Math.round(performance.now() - started),
    };
    try {
      result = await this.kernel.hooks.afterTool.promise(result, info);
    } catch (error) {
      // The tap that threw may have come before the audit: record the failure as the result.
      result = fail(`${call.name}: the result was lost: ${errorMessage(error)}`);
      await this.kernel.hooks.afterTool.promise(result, { ...info, status: 'error' })
        .catch((again) => this.kernel.log.warn(`afterTool failed twice for ${call.name}: ${errorMessage(again)}`));
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
    const problem = await checkToolArgs(tool, call.args);
    if (problem) return fail(`Invalid arguments for ${call.name}: ${problem}. Fix them and call again.`);

    if (run.signal.aborted) return fail(`Not run: ${abortedWhy(run.signal)}`);
    const bail = await this.kernel.hooks.beforeTool.promise({ run, call, tool });
    if (bail) return bail;

    const controller = new AbortController();
    const onAbort = () => controller.abort(run.signal.reason);
    run.signal.addEventListener('abort', onAbort, { once: true });
    const gate: SandboxContext = { run, toolCallId: call.id, origin: `tool ${call.name}` };
    const ctx: ToolContext = {
      agent: run.agent,
      sessionId: run.sessionId,
      iteration: run.iteration,
      toolCallId: call.id,
      signal: controller.signal,
      enforce: (action) => enforceAction(this.kernel, action, gate),
      launch: (request) => prepareExec(this.kernel, request, gate),
      service: (name) => this.kernel.service(name),
    };
    const timeoutMs = tool.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    try {
      // Each declared action passes the sandbox; those that ask wait for a person (or a rule
      // asks), who decides before anything happens. A resumed call holds its approval already.
      gate.approvedActions = approvedActions(run, call.id);
      const asks: ApprovalAsk[] = [];
      for (const action of (await tool.actions?.(call.args, ctx)) ?? []) {
        try {
          await ctx.enforce(action);
        } catch (error) {
          if (!isOryxError(error) || error.code !== 'ORYX_E_SANDBOX_ASK') throw error;
          asks.push({ action, reason: String(error.data?.reason) });
        }
      }
      const refused = await askFirst(this.kernel, run, call, tool, asks);
      if (refused) return refused;
      gate.approvedActions = approvedActions(run, call.id);
      for (const { action } of asks) await ctx.enforce(action!);
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          reject(new OryxError('ORYX_E_TOOL_TIMEOUT', `${call.name} timed out after ${timeoutMs} ms and was cancelled`, { retryable: true }));
          controller.abort();
        }, timeoutMs);
      });
      const aborted = new Promise<never>((_, reject) => {
        const abort = () => reject(new OryxError('ORYX_E_RUN_ABORTED', `Aborted: ${abortedWhy(run.signal)}`));
        if (run.signal.aborted) abort();
        controller.signal.addEventListener('abort', abort, { once: true });
      });
      const out = await Promise.race([tool.execute(call.args, ctx), timeout, aborted]);
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
      run.signal.removeEventListener('abort', onAbort);
    }
  }
}

/** Why the run's signal fired, for the result of a call it cut short. */
function abortedWhy(signal: AbortSignal): string {
  return signal.reason instanceof BudgetExceeded ? `the run ${signal.reason.stop.notice}` : 'the run was aborted';
}

function fail(content: string): ToolResult {
  return { content, isError: true, retryable: false };
}
