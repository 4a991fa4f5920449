import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolResult } from '@oryxos/kernel';

type Content = CallToolResult['content'][number];

/** A part's name that is already a URI (`test://a`, `file:///x.txt`) is kept as the resource's URI. */
const URI = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/**
 * An OryxOS tool result as MCP content: its text (unless empty), each image part as `image`,
 * an audio file as `audio`, any other file as an embedded `resource` (text when its media type
 * is text, else base64 `blob`; its URI is the part's name when that is one, else
 * `oryx://tool-results/<tool>/<n>`).
 *
 * @example
 * toMcpContent({ content: 'a chart', isError: false, parts: [{ type: 'image', mediaType: 'image/png', data }] }, 'plot')
 * // [{ type: 'text', text: 'a chart' }, { type: 'image', mimeType: 'image/png', data }]
 */
export function toMcpContent(result: ToolResult, tool: string): Content[] {
  const content: Content[] = [];
  if (result.content || !result.parts?.length) content.push({ type: 'text', text: result.content });
  for (const [index, part] of (result.parts ?? []).entries()) {
    if (part.type === 'image') { content.push({ type: 'image', mimeType: part.mediaType, data: part.data }); continue; }
    if (part.mediaType.startsWith('audio/')) { content.push({ type: 'audio', mimeType: part.mediaType, data: part.data }); continue; }
    const uri = part.name && URI.test(part.name) ? part.name : `oryx://tool-results/${encodeURIComponent(tool)}/${index + 1}`;
    const textual = part.mediaType.startsWith('text/') || /^application\/(json|xml|yaml)/.test(part.mediaType);
    content.push({
      type: 'resource',
      resource: textual ? { uri, mimeType: part.mediaType, text: Buffer.from(part.data, 'base64').toString('utf8') } : { uri, mimeType: part.mediaType, blob: part.data },
    });
  }
  return content;
}
