import type { RunResult } from '@oryxos/kernel';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toMcpContent } from './content.ts';
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

/**
 * The result of a call of an exposed OryxOS tool: the tool's result as MCP content (its
 * `isError` kept); a call waiting for a person's approval says how to decide it and where its
 * result will be (the run's session, `oryx://sessions/<id>`); a run that failed or was aborted
 * is an error result saying so.
 *
 * @example
 * directResult(await ctx.runs.process({ agent, message, call: { name: 'read_file', args } }), 'read_file', root)
 */
export function directResult(result: RunResult, tool: string, root: string): CallToolResult {
  if (result.stopReason === 'suspended') {
    const waiting = result.suspended?.[0];
    const id = typeof waiting?.data?.approvalId === 'string' ? waiting.data.approvalId : undefined;
    const where = `its result is then in the session ${result.sessionId} (\`oryx sessions show ${result.sessionId.slice(0, 8)}\`, or the resource oryx://sessions/${result.sessionId} when sessions are exposed)`;
    const how = id
      ? `A person approves it with \`oryx approvals approve ${id.slice(0, 8)}\` (or denies it with \`oryx approvals deny ${id.slice(0, 8)}\`) in ${root}, which runs the call there; ${where}.`
      : `Once that is done, ${where}.`;
    return {
      isError: true,
      content: [{ type: 'text', text: `${tool} waits for a person's approval: ${waiting?.reason ?? 'something outside the call'}. Nothing was approved and the call has not run. ${how}` }],
      _meta: { 'oryxos/sessionId': result.sessionId, 'oryxos/runId': result.runId, ...(id ? { 'oryxos/approvalId': id } : {}) },
    };
  }
  if (result.toolResult) {
    return { ...(result.toolResult.isError ? { isError: true } : {}), content: toMcpContent(result.toolResult, tool) };
  }
  const error = result.error;
  const why = error ? `${error.code}: ${error.message}${error.hint ? `\nhint: ${error.hint}` : ''}` : `the run stopped (${result.notice ?? result.stopReason}) before ${tool} gave a result`;
  return { isError: true, content: [{ type: 'text', text: why }] };
}
