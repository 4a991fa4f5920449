import type { Tool } from '@oryxos/kernel';
import type { Notifier } from './notifier.ts';

/**
 * The `notify` tool: an agent that lists it sends a mail on a channel the operator configured.
 * The sandbox check runs with the run's context (audited as the tool's); a denial is a denied
 * tool result, a failed delivery an error result, and either way a `notifications` row.
 */
export function notifyTool(notifier: () => Notifier): Tool {
  return {
    name: 'notify',
    description: 'Send an email on a notify channel (a named SMTP channel the operator configured; the recipients are fixed by the channel). '
      + 'Use it to report a result or raise an alert.',
    source: 'plugin',
    // Retries with backoff may take a while.
    timeoutMs: 180_000,
    inputSchema: {
      type: 'object',
      properties: {
        channel: { type: 'string', description: 'The channel name.' },
        subject: { type: 'string', minLength: 1, maxLength: 200, description: 'One line.' },
        body: { type: 'string', minLength: 1, maxLength: 100_000, description: 'Plain text.' },
      },
      required: ['channel', 'subject', 'body'],
      additionalProperties: false,
    },
    async execute(args, ctx) {
      const r = await notifier().send({
        channel: String(args.channel), subject: String(args.subject).replace(/[\r\n]+/g, ' '), body: String(args.body),
        origin: `tool notify of agent ${ctx.run.agent.name}`, sessionId: ctx.run.sessionId, runId: ctx.run.runId, enforce: ctx.enforce, signal: ctx.signal,
      });
      if (r.status === 'sent') return `Sent on channel ${r.channel} to ${r.to.join(', ')}${r.rejected ? ` (refused: ${r.rejected.join(', ')})` : ''}.`;
      const text = `Not sent on channel ${r.channel}: ${r.error!.code}: ${r.error!.message}`;
      return r.status === 'denied' ? { content: text, isError: true, denied: r.error!.message } : { content: text, isError: true, retryable: false };
    },
  };
}
