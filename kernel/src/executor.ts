import { ApprovalPending, askFirst, asksByRule } from './approval.ts';
import { errorMessage, isOryxError } from './errors.ts';
import { tapped, type ToolResultInfo } from './hooks.ts';
import type { Kernel } from './kernel.ts';
import { cutText } from './prompt.ts';
import { runAborted } from './run-state.ts';
import { abortedWhy, ToolCallScope } from './tool-call.ts';
import { checkToolArgs } from './tool-schema.ts';
import type { Approval, ApprovalAsk, RunContext, Tool, ToolCall, ToolMessage, ToolResult } from './types.ts';

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
    const { afterTool } = this.kernel.hooks;
    // The duration is for afterTool's taps (the audit); without any, the clock is not read.
    const started = tapped(afterTool) ? performance.now() : 0;
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

    if (runAborted(run)) return fail(`Not run: ${abortedWhy(run.signal)}`);
    if (tapped(this.kernel.hooks.beforeTool)) {
      const bail = await this.kernel.hooks.beforeTool.promise({ run, call, tool });
      if (bail) return bail;
    }

    const { kernel } = this;
    const ctx = new ToolCallScope(kernel, run, call);
    try {
      // Each declared action passes the sandbox; those that ask wait for a person (or a rule
      // asks), who decides before anything happens. A resumed call holds its approval already.
      const asks: ApprovalAsk[] = [];
      const actions = tool.actions ? await tool.actions(call.args, ctx) : undefined;
      for (const action of actions ?? []) {
        try {
          await ctx.enforce(action);
        } catch (error) {
          if (!isOryxError(error) || error.code !== 'ORYX_E_SANDBOX_ASK') throw error;
          asks.push({ action, reason: String(error.data?.reason) });
        }
      }
      if (asks.length || asksByRule(run, tool)) {
        const refused = await askFirst(kernel, run, call, tool, asks);
        if (refused) return refused;
        for (const { action } of asks) await ctx.enforce(action!);
      }
      const out = await ctx.execute(tool, tool.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS);
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
      ctx.end();
    }
  }
}

function fail(content: string): ToolResult {
  return { content, isError: true, retryable: false };
}
