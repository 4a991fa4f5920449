/**
 * Read-only resources a plugin publishes for readers outside a run (the mcp-server plugin's
 * `resources/list` and `resources/read`), without either plugin importing the other: the plugin
 * builds a {@link ResourceSource}, the config hands it to the reader.
 *
 * @example
 * const docs: ResourceSource = {
 *   name: 'docs',
 *   async list() { return [{ uri: 'docs://guide', name: 'guide', mimeType: 'text/markdown' }]; },
 *   async read(uri) { return uri === 'docs://guide' ? [{ uri, mimeType: 'text/markdown', text: '# Guide' }] : undefined; },
 * };
 * mcpServer({ agents: ['assistant'], resources: ['sessions', docs] });
 */
export interface ResourceInfo { uri: string; name: string; title?: string; description?: string; mimeType?: string }

/** A family of resources by an RFC 6570 URI template (`docs://pages/{page}`). */
export interface ResourceTemplateInfo { uriTemplate: string; name: string; title?: string; description?: string; mimeType?: string }

/** One content item of a read: text, or base64 bytes in `blob`. */
export interface ResourceContents { uri: string; mimeType?: string; text?: string; blob?: string }

export interface ResourceSource {
  /** For people and errors: `docs`. */
  readonly name: string;
  /** Its resources with a fixed URI. */
  list(): Promise<ResourceInfo[]>;
  /** Its URI templates; a URI matching one is read through {@link read}. */
  readonly templates?: readonly ResourceTemplateInfo[];
  /** The contents at `uri`; undefined when the source has nothing there. */
  read(uri: string): Promise<ResourceContents[] | undefined>;
  /** Values for a template's variable that start with `value` (a client's completion), best first. */
  complete?(uriTemplate: string, variable: string, value: string): Promise<string[]>;
}
