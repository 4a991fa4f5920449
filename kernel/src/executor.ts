import type { ApprovalAsk, SandboxAction, SuspendedCall } from '@oryxos/contracts';
import { errorMessage, isOryxError, type ToolCall, type ToolMessage } from '@oryxos/provider-spec';
import { argsHash } from '@oryxos/schema-kit';
import { cutText } from '@oryxos/history';
import type { Suspend, ToolCallInfo, ToolResultInfo } from './hooks.ts';
import type { Kernel } from './kernel.ts';
import { abortedWhy, ToolCallScope } from './tool-call.ts';
import { checkToolArgs } from './tool-schema.ts';
import type { RunContext, Tool, ToolResult } from './types.ts';

/** What running one call gave: its result and message, or `suspended` (no result: the run stops). */
export type CallOutcome = { message: ToolMessage; result: ToolResult } | { suspended: SuspendedCall };

export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;

/** How the executor tells the loop that a call is making progress. */
export type ProgressSink = (call: ToolCall, update: { message?: string; progress?: number; total?: number }) => void;

/**
 * Runs one tool call: look up → parse check → validate → sandbox (declared actions) →
 * `beforeTool` (a guard may answer or suspend) → a start mark when the tool is not idempotent →
 * execute within its time → secrets masked and output capped → `afterTool` → a structured tool
 * message. Nothing escapes: every failure, a throwing tap included, becomes an `isError` result
 * the model sees and `afterTool` (the audit) records.
 */
export class ToolExecutor {
  constructor(private readonly kernel: Kernel, private readonly onProgress: ProgressSink = () => {}) {}

  /**
   * `instead` is a result the kernel gives the call without running it (a stop rule's warning,
   * the run budget, an interrupted call); it is recorded by `afterTool` like any other.
   */
  async execute(call: ToolCall, run: RunContext, tools: ReadonlyMap<string, Tool>, instead?: ToolResult): Promise<CallOutcome> {
    const started = performance.now();
    const tool = tools.get(call.name);
    const info: ToolCallInfo = { run, call, tool, asks: [], approved: [], headers: {} };
    let result: ToolResult;
    try {
      const outcome = instead ?? await this.run(info, tools);
      if ('suspend' in outcome) return { suspended: { ...outcome.suspend, toolCallId: call.id, tool: call.name } };
      result = outcome;
    } catch (error) {
      result = fail(`${call.name} failed: ${errorMessage(error)}`);
    }
    return this.finish(info, result, started);
  }

  /** Masks, caps and audits a result, and makes its message. */
  private async finish(info: ToolCallInfo, given: ToolResult, started: number): Promise<CallOutcome> {
    const { call, run } = info;
    const maxChars = run.agent.settings.max_tool_output_chars;
    // What the model sees is what is stored and audited: secrets masked, then cut to the cap.
    const content = this.kernel.secrets.mask(given.content);
    let result: ToolResult = content.length > maxChars
      ? { ...given, content: cutText(content, maxChars, 'over max_tool_output_chars'), fullChars: content.length }
      : { ...given, content };
    const status = result.denied !== undefined ? 'denied' : result.isError ? 'error' : 'ok';
    // The new keys before the spread: on Node 20 (V8 11.3) a key added after a spread takes V8's
    // slow path, ~0.5 µs each (2 µs for these two, 5 % of an in-memory loop step, bench/README.md).
    const done: ToolResultInfo = { status, durationMs: Math.round(performance.now() - started), ...info };
    try {
      result = await this.kernel.hooks.afterTool.promise(result, done);
    } catch (error) {
      // The tap that threw may have come before the audit: record the failure as the result.
      result = fail(`${call.name}: the result was lost: ${errorMessage(error)}`);
      await this.kernel.hooks.afterTool.promise(result, { ...done, status: 'error' })
        .catch((again) => this.kernel.log.warn(`afterTool failed twice for ${call.name}: ${errorMessage(again)}`));
    }
    const message: ToolMessage = {
      role: 'tool', toolCallId: call.id, name: call.name, content: result.content,
      ...(result.isError ? { isError: true } : {}), ...(result.parts?.length ? { parts: result.parts } : {}),
    };
    return { result, message };
  }

  private async run(info: ToolCallInfo, tools: ReadonlyMap<string, Tool>): Promise<ToolResult | Suspend> {
    const { call, run, tool } = info;
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

    const ctx = new ToolCallScope(this.kernel, run, call, info.approved, info.headers, (update) => this.onProgress(call, update));
    try {
      // Each declared action passes the sandbox; those that ask need a person, whom a
      // `beforeTool` guard (the approvals plugin) asks before anything happens.
      const actions = tool.actions ? await tool.actions(call.args, ctx) : [];
      const sandbox = this.kernel.service('sandbox');
      for (const action of actions) {
        const decision = await sandbox.enforce(action, { run, agent: run.agent, toolCallId: call.id, origin: `tool ${call.name}` });
        if (decision.allow) continue;
        if (!decision.ask) return denial(decision.reason);
        info.asks.push({ action, reason: decision.reason });
      }
      const bail = await this.kernel.hooks.beforeTool.promise(info);
      if (bail) return bail;
      const waiting = unapproved(info.asks, info.approved);
      if (waiting.length) {
        return denial(`${waiting.map((a) => a.reason).join('; ')}; nobody could approve it (enable the approvals plugin to ask a person)`);
      }
      if (!tool.idempotent) await this.markStarted(run, call);
      const out = await ctx.execute(tool, tool.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS);
      if (typeof out === 'string') return { content: out, isError: false };
      return out && typeof out.content === 'string' ? out : fail(`${call.name} returned no text result`);
    } catch (error) {
      if (isOryxError(error) && (error.code === 'ORYX_E_SANDBOX_DENIED' || error.code === 'ORYX_E_SANDBOX_ASK')) {
        const reason = String(error.data?.reason ?? error.message);
        const midway = error.code === 'ORYX_E_SANDBOX_ASK'
          ? '; a person can only be asked before a call starts, and this action came up while it ran' : '';
        return denial(`${reason}${midway}`);
      }
      if (isOryxError(error) && (error.code === 'ORYX_E_TOOL_TIMEOUT' || error.code === 'ORYX_E_RUN_ABORTED')) {
        return { content: error.message, isError: true, retryable: error.retryable };
      }
      return { content: `${call.name} failed: ${errorMessage(error)}`, isError: true, retryable: isOryxError(error) ? error.retryable : false };
    } finally {
      ctx.end();
    }
  }

  /** Commits that the call is about to run: after a crash it is never run a second time. */
  private async markStarted(run: RunContext, call: ToolCall): Promise<void> {
    await this.kernel.service('sessions').markStarted({
      runId: run.runId, sessionId: run.sessionId, toolCallId: call.id, tool: call.name, argsHash: argsHash(call.args), startedAt: new Date().toISOString(),
    });
  }
}

/** The asks no tap approved (same kind and target as an approved action). */
function unapproved(asks: ApprovalAsk[], approved: SandboxAction[]): ApprovalAsk[] {
  return asks.filter((a) => !a.action || !approved.some((b) => JSON.stringify(b) === JSON.stringify(a.action)));
}

/** The result of a call that was refused (the sandbox, or a person). */
export function denial(reason: string): ToolResult {
  return { content: `Denied by the sandbox: ${reason}`, isError: true, denied: reason };
}

export function fail(content: string): ToolResult {
  return { content, isError: true, retryable: false };
}
