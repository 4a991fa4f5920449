import type { DamagedMessage, SessionInfo, StoredMessage } from '@oryxos/contracts';

/**
 * A session as people read it: each message numbered, tool calls as `→ name(args) [id]`,
 * tool results with their call id and ok/error, long text cut unless `full`.
 */
export function formatSession(
  info: SessionInfo, messages: (StoredMessage | DamagedMessage)[], options: { full?: boolean; maxChars?: number; children?: SessionInfo[] } = {},
): string {
  const max = options.full ? Infinity : options.maxChars ?? 2000;
  const cut = (text: string) => (text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters; --full shows all)` : text);
  const indent = (text: string) => text.split('\n').map((l) => `    ${l}`).join('\n');
  const lines = [
    `session ${info.id}`,
    `agent   ${info.agent}`,
    `title   ${info.title || '(none)'}`,
    `created ${info.createdAt}  updated ${info.updatedAt}  ${info.messageCount} message(s)`,
  ];
  if (info.external) lines.push(`door    ${info.external.door} ${info.external.id}`);
  if (info.tags?.length) lines.push(`tags    ${info.tags.join(', ')}`);
  if (info.parentSessionId) lines.push(`parent  ${info.parentSessionId} (this session is a sub-agent's)`);
  for (const child of options.children ?? []) lines.push(`child   ${child.id} agent ${child.agent} · ${child.messageCount} message(s) · ${child.title || '(no title)'}`);
  if (messages.length && messages[0]!.seq > 1) lines.push(`(${messages[0]!.seq - 1} earlier message(s) not shown)`);
  const damaged = messages.filter((m) => 'damaged' in m).length;
  for (const entry of messages) {
    lines.push('');
    if ('damaged' in entry) {
      lines.push(`#${entry.seq} ✗ UNREADABLE: ${entry.damaged.message}`);
      continue;
    }
    const { seq, message, createdAt } = entry;
    const time = createdAt.slice(11, 19);
    if (message.role === 'tool') {
      lines.push(`#${seq} tool ${message.name} [${message.toolCallId}] ${message.isError ? 'error' : 'ok'} · ${time}`);
      lines.push(indent(cut(message.content)));
      continue;
    }
    lines.push(`#${seq} ${message.role} · ${time}`);
    if (message.content) lines.push(indent(cut(message.content)));
    if (message.role === 'assistant') {
      for (const call of message.toolCalls ?? []) lines.push(`    → ${call.name}(${cut(call.argsError ?? JSON.stringify(call.args))}) [${call.id}]`);
    }
  }
  if (damaged) lines.push('', `${damaged} message(s) cannot be read; \`oryx sessions repair ${info.id}\` moves them to the messages_quarantine table so the session works again.`);
  return lines.join('\n');
}
