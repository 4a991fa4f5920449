import type { RunResult } from '@oryxos/kernel';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ExposedAgent } from './options.ts';

/**
 * A run's result as an MCP tool result: the answer as text, and the same facts as
 * `structuredContent` (answer, sessionId, runId, stopReason, usage; notice, approval, error when set).
 *
 * @example
 * toolResult(await ctx.runs.process({ agent, message }), exposed, ctx.config.root).structuredContent.sessionId
 */
export function toolResult(result: RunResult, exposed: ExposedAgent, root: string): CallToolResult & { structuredContent: Record<string, unknown> } {
  const { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens } = result.usage;
  const structured: Record<string, unknown> = {
    answer: result.answer, sessionId: result.sessionId, runId: result.runId, stopReason: result.stopReason,
    usage: { inputTokens, outputTokens, ...(cacheReadTokens !== undefined ? { cacheReadTokens } : {}), ...(cacheWriteTokens !== undefined ? { cacheWriteTokens } : {}) },
    ...(result.notice ? { notice: result.notice } : {}),
  };
  const again = `call ${exposed.tool} with session "${result.sessionId}"`;
  switch (result.stopReason) {
    case 'suspended': {
      const waiting = result.suspended?.[0];
      const id = typeof waiting?.data?.approvalId === 'string' ? waiting.data.approvalId : undefined;
      if (!id) {
        return { content: [{ type: 'text', text: `The run is waiting: ${waiting?.reason ?? 'for something outside it'}. Once that is done, ${again} to go on.` }], structuredContent: structured };
      }
      const short = id.slice(0, 8);
      const approval = { id, tool: waiting!.tool, reason: waiting!.reason, approve: `oryx approvals approve ${short}`, deny: `oryx approvals deny ${short}` };
      return {
        content: [{
          type: 'text',
          text: `The run waits for a person's approval of ${waiting!.tool}: ${waiting!.reason}. Nothing was approved and the call has not run. `
            + `A person approves it with \`${approval.approve}\` (or denies it with \`${approval.deny}\`) in ${root}, which goes on with the run there; `
            + `then ${again} to continue the conversation.`,
        }],
        structuredContent: { ...structured, approval },
      };
    }
    case 'aborted':
      return { isError: true, content: [{ type: 'text', text: `The run was aborted (${result.notice ?? 'cancelled'}); the session keeps what was done so far: ${again} to go on.` }], structuredContent: structured };
    case 'error': {
      const error = result.error ?? { code: 'ORYX_E_RUN_FAILED', message: 'the run failed' };
      return {
        isError: true,
        content: [{ type: 'text', text: `${error.code}: ${error.message}${error.hint ? `\nhint: ${error.hint}` : ''}` }],
        structuredContent: { ...structured, error: { code: error.code, message: error.message, ...(error.hint ? { hint: error.hint } : {}) } },
      };
    }
    default:
      return { content: [{ type: 'text', text: result.notice && result.stopReason !== 'final' ? `${result.answer}\n\n(${result.notice})` : result.answer }], structuredContent: structured };
  }
}
