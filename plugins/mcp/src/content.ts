import type { ToolResult } from '@oryxos/kernel';

/** The parts of an MCP `tools/call` result this plugin reads (kept structural so the SDK stays a lazy import). */
export interface McpCallResult {
  content?: McpContent[];
  structuredContent?: unknown;
  isError?: boolean;
  /** Results of servers on the 2024-10-07 protocol. */
  toolResult?: unknown;
}

type McpContent = { type: string; [key: string]: unknown };

/**
 * Turns an MCP tool result into the kernel's: text parts joined with newlines, other parts
 * summarised in one line (a model cannot use raw base64), `isError` kept.
 *
 * @example
 * toToolResult({ content: [{ type: 'image', data: 'iVBO…', mimeType: 'image/png' }] });
 * // { content: '[image: image/png, 1234 bytes]', isError: false }
 */
export function toToolResult(result: McpCallResult): ToolResult {
  const parts = (result.content ?? []).map(describe);
  if (parts.length === 0 && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent));
  if (parts.length === 0 && result.toolResult !== undefined) parts.push(typeof result.toolResult === 'string' ? result.toolResult : JSON.stringify(result.toolResult));
  const content = parts.join('\n') || (result.isError ? '(the tool reported an error without a message)' : '(empty result)');
  return { content, isError: result.isError === true };
}

function describe(part: McpContent): string {
  switch (part.type) {
    case 'text':
      return String(part.text ?? '');
    case 'image':
    case 'audio':
      return `[${part.type}: ${String(part.mimeType ?? 'unknown type')}, ${base64Bytes(part.data)} bytes]`;
    case 'resource': {
      const r = (part.resource ?? {}) as { uri?: string; mimeType?: string; text?: string; blob?: string };
      if (typeof r.text === 'string') return `[resource: ${r.uri ?? 'unknown uri'}]\n${r.text}`;
      return `[resource: ${r.uri ?? 'unknown uri'}, ${r.mimeType ?? 'unknown type'}, ${base64Bytes(r.blob)} bytes]`;
    }
    case 'resource_link':
      return `[resource link: ${String(part.name ?? '')} ${String(part.uri ?? '')}${part.description ? ` (${String(part.description)})` : ''}]`;
    default:
      return `[${part.type} content]`;
  }
}

function base64Bytes(data: unknown): number {
  return typeof data === 'string' ? Buffer.byteLength(data, 'base64') : 0;
}
