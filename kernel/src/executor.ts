import { OryxError, errorMessage, isOryxError } from './errors.ts';
import type { ToolResultInfo } from './hooks.ts';
import { validateJsonSchema } from './json-schema.ts';
import type { Kernel } from './kernel.ts';
import { enforceAction, prepareExec } from './sandbox-gate.ts';
import type { RunContext, SandboxContext, Tool, ToolCall, ToolContext, ToolMessage, ToolResult } from './types.ts';

export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;

/**
 * Runs one tool call: look up → parse check → validate → `beforeTool` → sandbox → execute
 * (with a time limit) → `afterTool` → a structured tool message. Every failure becomes an
 * `isError` result the model sees; nothing here throws except a failing hook tap.
 */
export class ToolExecutor {
  constructor(private readonly kernel: Kernel) {}

  async execute(call: ToolCall, run: RunContext, tools: Map<string, Tool>): Promise<{ message: ToolMessage; result: ToolResult }> {
    const started = performance.now();
    const tool = tools.get(call.name);
    let result = await this.run(call, run, tool, tools);
    const status: ToolResultInfo['status'] = result.denied !== undefined ? 'denied' : result.isError ? 'error' : 'ok';
    result = await this.kernel.hooks.afterTool.promise(result, {
      run, call, tool, status, durationMs: Math.round(performance.now() - started),
    });
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
    const problem = tool.validate ? tool.validate(call.args) : validateJsonSchema(tool.inputSchema, call.args);
    if (problem) return fail(`Invalid arguments for ${call.name}: ${problem}. Fix them and call again.`);

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
      for (const action of (await tool.actions?.(call.args, ctx)) ?? []) await ctx.enforce(action);
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          reject(new OryxError('ORYX_E_TOOL_TIMEOUT', `${call.name} timed out after ${timeoutMs} ms and was cancelled`, { retryable: true }));
          controller.abort();
        }, timeoutMs);
      });
      const aborted = new Promise<never>((_, reject) => {
        if (run.signal.aborted) reject(new OryxError('ORYX_E_RUN_ABORTED', 'The run was aborted'));
        controller.signal.addEventListener('abort', () => reject(new OryxError('ORYX_E_RUN_ABORTED', 'The run was aborted')), { once: true });
      });
      const out = await Promise.race([tool.execute(call.args, ctx), timeout, aborted]);
      return typeof out === 'string' ? { content: out, isError: false } : out;
    } catch (error) {
      if (isOryxError(error) && error.code === 'ORYX_E_SANDBOX_DENIED') {
        const reason = String(error.data?.reason ?? error.message);
        return { content: `Denied by the sandbox: ${reason}`, isError: true, denied: reason };
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

function fail(content: string): ToolResult {
  return { content, isError: true, retryable: false };
}
