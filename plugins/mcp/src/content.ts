import type { MediaPart } from '@oryxos/provider-spec';
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

/** One content item of a `resources/read` result. */
export interface McpResourceContent { uri: string; mimeType?: string; text?: string; blob?: string }

/**
 * A tool result with the images, audio and binary resources it carried, as message parts a
 * model that reads media can be given (`ImagePart` for images, `FilePart` for audio and
 * blobs). `content` keeps a one-line placeholder for each, for models that read text only.
 * The kernel's `ToolResult` does not carry `parts` yet; the lead adds `parts?: MediaPart[]`.
 */
export interface McpToolResult extends ToolResult {
  parts?: MediaPart[];
}

/**
 * Turns an MCP tool result into the kernel's: text parts joined with newlines, media as
 * `parts` with a one-line placeholder in the text (a model cannot use raw base64), embedded
 * text resources inlined, `isError` kept.
 *
 * @example
 * toToolResult({ content: [{ type: 'image', data: 'iVBO…', mimeType: 'image/png' }] }, 'everything/get-tiny-image');
 * // { content: '[image: image/png, 1234 bytes]', isError: false, parts: [{ type: 'image', mediaType: 'image/png', data: 'iVBO…', name: 'mcp everything/get-tiny-image' }] }
 */
export function toToolResult(result: McpCallResult, source?: string): McpToolResult {
  const parts: MediaPart[] = [];
  const name = source ? `mcp ${source}` : undefined;
  const lines = (result.content ?? []).map((part) => describe(part, parts, name));
  if (lines.length === 0 && result.structuredContent !== undefined) lines.push(JSON.stringify(result.structuredContent));
  if (lines.length === 0 && result.toolResult !== undefined) lines.push(typeof result.toolResult === 'string' ? result.toolResult : JSON.stringify(result.toolResult));
  const content = lines.join('\n') || (result.isError ? '(the tool reported an error without a message)' : '(empty result)');
  return { content, isError: result.isError === true, ...(parts.length ? { parts } : {}) };
}

/**
 * The contents of a `resources/read` result as a tool result: text inline under a
 * `[resource: uri]` line, blobs as parts.
 *
 * @example
 * resourceResult([{ uri: 'file:///a.txt', text: 'hello' }]); // { content: '[resource: file:///a.txt]\nhello', isError: false }
 */
export function resourceResult(contents: McpResourceContent[], source?: string): McpToolResult {
  return toToolResult({ content: contents.map((resource) => ({ type: 'resource', resource })) }, source);
}

function describe(part: McpContent, parts: MediaPart[], name: string | undefined): string {
  switch (part.type) {
    case 'text':
      return String(part.text ?? '');
    case 'image':
    case 'audio': {
      const mediaType = String(part.mimeType ?? (part.type === 'image' ? 'image/png' : 'audio/wav'));
      if (typeof part.data === 'string') parts.push({ type: part.type === 'image' ? 'image' : 'file', mediaType, data: part.data, ...(name ? { name } : {}) });
      return `[${part.type}: ${mediaType}, ${base64Bytes(part.data)} bytes]`;
    }
    case 'resource': {
      const r = (part.resource ?? {}) as McpResourceContent;
      if (typeof r.text === 'string') return `[resource: ${r.uri ?? 'unknown uri'}]\n${r.text}`;
      const mediaType = r.mimeType ?? 'application/octet-stream';
      if (typeof r.blob === 'string') parts.push({ type: mediaType.startsWith('image/') ? 'image' : 'file', mediaType, data: r.blob, name: r.uri ?? name ?? 'resource' });
      return `[resource: ${r.uri ?? 'unknown uri'}, ${mediaType}, ${base64Bytes(r.blob)} bytes]`;
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
