import type { JsonSchema } from '@oryxos/provider-spec';

/** The hints a server gives about a tool (MCP `ToolAnnotations`); untrusted, as the spec says: for display and policy, never for security. */
export interface McpToolAnnotations {
  title?: string;
  /** It only reads. Spec default false. */
  readOnlyHint?: boolean;
  /** When not read-only: it may delete or overwrite. Spec default true. */
  destructiveHint?: boolean;
  /** Calling it again with the same arguments changes nothing more. Spec default false. */
  idempotentHint?: boolean;
  /** It reaches outside systems (the web, other people's data). Spec default true. */
  openWorldHint?: boolean;
}

/** A tool of a server, as the kernel and `oryx mcp tools` see it. */
export interface McpToolInfo {
  server: string;
  /** The server's own name for it. */
  name: string;
  /** The kernel tool name, `<server>__<name>`. */
  exposed: string;
  /** Its human-readable name (the tool's `title`, else the annotations' `title`). */
  title?: string;
  /** The description the model gets: the server's, then a line with the title and hints. */
  description: string;
  /** The server's own description, unchanged. */
  serverDescription?: string;
  annotations?: McpToolAnnotations;
  /** The server's JSON Schema, unchanged. */
  inputSchema: JsonSchema;
}

/** A listed tool as the SDK hands it over. */
export interface RawTool { name: string; title?: string; description?: string; inputSchema: JsonSchema; annotations?: McpToolAnnotations }

/**
 * The description a model gets for an MCP tool: the server's description (or the title, or a
 * stand-in), then one line in parentheses with the title (when the description does not start
 * with it) and the hints the server set — `read-only`, `destructive`, `not destructive`,
 * `idempotent`, `open world`, `closed world` — so a model can prefer reading to writing.
 * Hints left unset are not guessed (the spec's defaults stay unsaid).
 *
 * @example
 * modelDescription({ name: 'rm', description: 'Delete a file.', inputSchema: {}, annotations: { title: 'Delete file', destructiveHint: true } }, 'fs');
 * // 'Delete a file.\n(Delete file; destructive: may delete or overwrite data)'
 */
export function modelDescription(tool: RawTool, server: string): string {
  const title = tool.title ?? tool.annotations?.title;
  const base = tool.description ?? title ?? `${tool.name} (MCP server ${server})`;
  const a = tool.annotations ?? {};
  const hints: string[] = [];
  if (a.readOnlyHint === true) hints.push('read-only');
  else {
    if (a.destructiveHint === true) hints.push('destructive: may delete or overwrite data');
    if (a.destructiveHint === false) hints.push('not destructive: only adds');
  }
  if (a.idempotentHint === true) hints.push('idempotent: safe to repeat');
  if (a.openWorldHint === true) hints.push('open world: reaches outside systems');
  if (a.openWorldHint === false) hints.push('closed world');
  const shownTitle = title && title !== tool.name && !base.startsWith(title) ? title : undefined;
  const line = [shownTitle, ...hints].filter(Boolean).join('; ');
  return line ? `${base}\n(${line})` : base;
}

/** The info of one listed tool. */
export function toolInfo(tool: RawTool, server: string, exposed: string): McpToolInfo {
  const title = tool.title ?? tool.annotations?.title;
  return {
    server,
    name: tool.name,
    exposed,
    ...(title ? { title } : {}),
    description: modelDescription(tool, server),
    ...(tool.description !== undefined ? { serverDescription: tool.description } : {}),
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
    inputSchema: tool.inputSchema,
  };
}
