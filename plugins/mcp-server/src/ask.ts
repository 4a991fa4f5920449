import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Answer, Logger, Question, RunContext } from '@oryxos/kernel';
import { describeAction, errorMessage } from '@oryxos/plugin-kit';

/** How many characters of a call's arguments the approval question shows. */
const MAX_ARGS = 4000;

/**
 * Asks the person behind the MCP client through elicitation (form mode), when the client
 * declared it; undefined otherwise, or when the person cancels, the question times out or
 * fails — the run then pauses with a stored approval. Decline is a denial. It never approves
 * on anyone's behalf.
 *
 * @example
 * const answer = await askClient(server, extra, question, run, { by: 'mcp:claude-code@2.0', timeoutMs: 300_000, log });
 */
export async function askClient(
  server: McpServer, extra: RequestHandlerExtra<ServerRequest, ServerNotification>, question: Question, run: RunContext,
  options: { by: string; timeoutMs: number; log: Logger },
): Promise<Answer | undefined> {
  if (!server.server.getClientCapabilities()?.elicitation?.form) return undefined;
  const request = { relatedRequestId: extra.requestId, timeout: options.timeoutMs, signal: run.signal };
  try {
    if (question.kind === 'input') {
      const r = await server.server.elicitInput({ mode: 'form', message: `${question.source}: ${question.message}`, requestedSchema: question.schema as never }, request);
      return r.action === 'accept' ? { action: 'accept', content: (r.content ?? {}) as Record<string, unknown> } : { action: r.action };
    }
    const args = JSON.stringify(question.call.args, null, 2);
    // A door's own call (an exposed tool) is the client's request, made as the agent would make it.
    const who = run.direct ? `You asked to call ${question.tool.name} (as the OryxOS agent ${run.agent.name}).` : `The OryxOS agent ${run.agent.name} wants to call ${question.tool.name}.`;
    const message = `${who}\n`
      + question.asks.map((a) => `- ${a.action ? `${describeAction(a.action)}: ` : ''}${a.reason}`).join('\n')
      + `\nArguments:\n${args.length > MAX_ARGS ? `${args.slice(0, MAX_ARGS)}\n… (${args.length - MAX_ARGS} more characters)` : args}`;
    const r = await server.server.elicitInput({
      mode: 'form', message,
      requestedSchema: {
        type: 'object',
        properties: {
          decision: {
            type: 'string', title: 'Decision', enum: ['approve', 'always', 'deny'],
            description: 'approve: this call once; always: every call of this tool in this run; deny: do not run it.',
          },
          reason: { type: 'string', title: 'Reason (optional)' },
        },
        required: ['decision'],
      },
    }, request);
    if (r.action === 'decline') return { decision: 'deny', by: options.by, reason: 'declined in the MCP client' };
    if (r.action !== 'accept') return undefined;
    const decision = r.content?.decision;
    const reason = typeof r.content?.reason === 'string' && r.content.reason ? r.content.reason : undefined;
    if (decision !== 'approve' && decision !== 'always' && decision !== 'deny') return undefined;
    return { decision, by: options.by, ...(reason ? { reason } : {}) };
  } catch (error) {
    options.log.warn(`the MCP client could not be asked about ${question.kind === 'approval' ? question.tool.name : question.source}: ${errorMessage(error)}; the run waits instead`);
    return undefined;
  }
}
