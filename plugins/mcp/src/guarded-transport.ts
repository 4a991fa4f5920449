import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { withCallHeaders } from './call-headers.ts';

/** The JSON-RPC error code of an answer OryxOS refused before the SDK read it (in the implementation-defined range). */
export const REFUSED_ANSWER = -32099;
/** The JSON-RPC error code of a request whose response stream was cut before it was answered. */
export const STREAM_CUT = -32098;

/** Tools one `tools/list` page may hold before it is refused unread: far above any real server, below what would hold the event loop. */
export const MAX_TOOLS_PER_PAGE = 10_000;

/** What one server may send. */
export interface MessageLimits {
  /** Bytes of one message. */
  maxMessageBytes: number;
}

/**
 * Stands between an MCP client and a server's transport and refuses what a server should never
 * send, before the SDK parses and validates it: a `tools/list` page with more than
 * {@link MAX_TOOLS_PER_PAGE} tools, and any message over `maxMessageBytes` (the stdio
 * transport's buffer stops those; for HTTP, `watchedFetch` does). A refused answer reaches the
 * waiting request as a JSON-RPC error that says why, so a call fails at once instead of waiting
 * for its timeout; so does a request whose response stream was cut ({@link cut}).
 *
 * Each listed tool reaches the SDK as its name, title, description and annotations (each
 * type-checked) with a placeholder schema; the server's own input schema is kept here ({@link inputSchema}) for the kernel to
 * judge tool by tool. So one tool with a broken schema cannot make the SDK reject the list.
 *
 * @example
 * const guard = new GuardedTransport(new StdioClientTransport({ command, maxBufferSize: limits.maxMessageBytes }), limits);
 * await client.connect(guard);
 */
export class GuardedTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  /** Requests sent and not yet answered, with their methods. */
  private readonly pending = new Map<RequestId, string>();
  /** Set once a message over the limit was refused, for the reason the server is said to have gone away. */
  oversize?: string;
  private readonly schemas = new Map<string, unknown>();
  /** Requests whose response stream can be resumed: the SDK reconnects it; if that fails, they are cut. */
  private readonly resuming = new Set<RequestId>();

  /** `onOversize` ends a stdio server at once: the rest of its message would be read (and dropped) for nothing. */
  constructor(private readonly inner: Transport, private readonly limits: MessageLimits, private readonly onOversize?: () => void) {
    inner.onmessage = (message, extra) => this.receive(message, extra);
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => {
      // The SDK's stdio buffer throws this and then closes the connection: fail the waiting requests with the reason.
      if (/ReadBuffer exceeded maximum size/.test(error.message)) {
        if (!this.oversize) this.onOversize?.();
        this.refuseAll(this.tooLarge());
      }
      // The SDK gave up resuming a stream: what it was waiting for will not come.
      if (/Maximum reconnection attempts|Failed to reconnect SSE stream/.test(error.message) && this.resuming.size) {
        this.cut([...this.resuming], `the response stream was cut and could not be resumed (${error.message})`);
      }
      this.onerror?.(error);
    };
  }

  get sessionId(): string | undefined { return this.inner.sessionId; }

  setProtocolVersion(version: string): void { this.inner.setProtocolVersion?.(version); }

  start(): Promise<void> { return this.inner.start(); }

  close(): Promise<void> { return this.inner.close(); }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if ('method' in message && 'id' in message) {
      this.pending.set(message.id, message.method);
      // A new listing (its first page) replaces what the last one brought.
      if (message.method === 'tools/list' && !(message.params as { cursor?: string } | undefined)?.cursor) this.schemas.clear();
    }
    return this.inner.send(message, options);
  }

  /** Refuses the answers to these requests (an HTTP response that grew over the limit), or to all that wait. */
  refuseAll(why: string, ids: RequestId[] = [...this.pending.keys()]): void {
    for (const id of ids) {
      if (!this.pending.delete(id)) continue;
      this.onmessage?.({ jsonrpc: '2.0', id, error: { code: REFUSED_ANSWER, message: why } });
    }
  }

  /** Fails these requests at once: their response stream was cut before it answered them. */
  cut(ids: RequestId[], why: string): void {
    for (const id of ids) {
      this.resuming.delete(id);
      if (!this.pending.delete(id)) continue;
      this.onmessage?.({ jsonrpc: '2.0', id, error: { code: STREAM_CUT, message: why } });
    }
  }

  /** These requests wait on a stream the SDK will resume. */
  resumable(ids: RequestId[]): void {
    for (const id of ids) if (this.pending.has(id)) this.resuming.add(id);
  }

  /** The method of a request still waiting for its answer. */
  method(id: RequestId): string | undefined {
    return this.pending.get(id);
  }

  /** The input schema a listed tool came with, as the server sent it. */
  inputSchema(tool: string): unknown {
    return this.schemas.get(tool);
  }

  /** Why a message over the limit was refused. */
  tooLarge(): string {
    return (this.oversize = `the server sent a message of more than ${this.limits.maxMessageBytes} bytes (limits.maxMessageBytes); it was not read`);
  }

  private receive(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    const id = 'method' in message ? undefined : (message as { id?: RequestId }).id;
    if (id !== undefined) {
      const method = this.pending.get(id);
      if (method === undefined) return; // an answer to nothing asked (or already refused)
      this.pending.delete(id);
      this.resuming.delete(id);
      const tools = method === 'tools/list' && 'result' in message ? (message.result as { tools?: unknown }).tools : undefined;
      if (Array.isArray(tools) && tools.length > MAX_TOOLS_PER_PAGE) {
        message = { jsonrpc: '2.0', id, error: { code: REFUSED_ANSWER, message: `the server offers ${tools.length} tools in one page, more than OryxOS reads (${MAX_TOOLS_PER_PAGE})` } };
      } else if (Array.isArray(tools)) {
        (message as unknown as { result: { tools: unknown[] } }).result.tools = tools.flatMap((tool) => this.listed(tool));
      }
    }
    this.onmessage?.(message, extra);
  }

  /** A listed tool as the SDK gets it: what OryxOS reads, type-checked; nothing the SDK's schema could refuse. */
  private listed(tool: unknown): object[] {
    const t = tool as { name?: unknown; title?: unknown; description?: unknown; inputSchema?: unknown; annotations?: unknown } | null;
    if (!t || typeof t !== 'object' || typeof t.name !== 'string') return [];
    this.schemas.set(t.name, t.inputSchema);
    const annotations = toolAnnotations(t.annotations);
    return [{
      name: t.name,
      ...(typeof t.title === 'string' ? { title: t.title } : {}),
      ...(typeof t.description === 'string' ? { description: t.description } : {}),
      ...(annotations ? { annotations } : {}),
      inputSchema: { type: 'object' },
    }];
  }
}

/** The hints of MCP tool annotations, each kept only when it has the type the spec gives it. */
function toolAnnotations(value: unknown): Record<string, string | boolean> | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  const out: Record<string, string | boolean> = {};
  if (typeof v.title === 'string') out.title = v.title;
  for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) {
    if (typeof v[hint] === 'boolean') out[hint] = v[hint] as boolean;
  }
  return Object.keys(out).length ? out : undefined;
}
