import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { withCallHeaders } from './call-headers.ts';

/** The JSON-RPC error code of an answer OryxOS refused before the SDK read it (in the implementation-defined range). */
export const REFUSED_ANSWER = -32099;

/** What one server may send. */
export interface MessageLimits {
  /** Tools in one `tools/list` page. */
  maxTools: number;
  /** Bytes of one message. */
  maxMessageBytes: number;
}

/**
 * Stands between an MCP client and a server's transport and refuses what a server should never
 * send, before the SDK parses and validates it: a `tools/list` page with more than `maxTools`
 * tools, and any message over `maxMessageBytes` (the stdio transport's buffer stops those; for
 * HTTP, {@link limitedFetch} does). A refused answer reaches the waiting request as a JSON-RPC
 * error that says why, so a call fails at once instead of waiting for its timeout.
 *
 * Each listed tool reaches the SDK as its name, title and description with a placeholder
 * schema; the server's own input schema is kept here ({@link inputSchema}) for the kernel to
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
      const tools = method === 'tools/list' && 'result' in message ? (message.result as { tools?: unknown }).tools : undefined;
      if (Array.isArray(tools) && tools.length > this.limits.maxTools) {
        message = { jsonrpc: '2.0', id, error: { code: REFUSED_ANSWER, message: `the server offers ${tools.length} tools in one page, more than limits.maxTools (${this.limits.maxTools})` } };
      } else if (Array.isArray(tools)) {
        (message as unknown as { result: { tools: unknown[] } }).result.tools = tools.flatMap((tool) => this.listed(tool));
      }
    }
    this.onmessage?.(message, extra);
  }

  /** A listed tool as the SDK gets it: what OryxOS reads, type-checked; nothing the SDK's schema could refuse. */
  private listed(tool: unknown): object[] {
    const t = tool as { name?: unknown; title?: unknown; description?: unknown; inputSchema?: unknown } | null;
    if (!t || typeof t !== 'object' || typeof t.name !== 'string') return [];
    this.schemas.set(t.name, t.inputSchema);
    return [{
      name: t.name,
      ...(typeof t.title === 'string' ? { title: t.title } : {}),
      ...(typeof t.description === 'string' ? { description: t.description } : {}),
      inputSchema: { type: 'object' },
    }];
  }
}

/**
 * `fetch` for the Streamable HTTP transport that stops reading a response once one message in
 * it passes `maxBytes` (a JSON body is one message; an event stream counts from each blank
 * line), and has the guard refuse the requests that response was answering.
 */
export function limitedFetch(maxBytes: number, guard: () => GuardedTransport | undefined): (url: string | URL, init?: RequestInit) => Promise<Response> {
  return async (url, init) => {
    init = withCallHeaders(init);
    const response = await fetch(url, init);
    if (!response.body) return response;
    const ids = requestIds(init?.body);
    let size = 0;
    let newline = false;
    const counter = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        for (let i = 0; i < chunk.length; i++) {
          const byte = chunk[i]!;
          if (byte === 10) { if (newline) size = 0; newline = true; } else if (byte !== 13) newline = false;
          if (++size > maxBytes) {
            const g = guard();
            const why = g?.tooLarge() ?? `a message of more than ${maxBytes} bytes`;
            g?.refuseAll(why, ids);
            controller.error(new Error(why));
            return;
          }
        }
        controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(counter), { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** The ids of the JSON-RPC requests in a request body. */
function requestIds(body: unknown): RequestId[] {
  if (typeof body !== 'string') return [];
  try {
    const parsed = JSON.parse(body) as unknown;
    return (Array.isArray(parsed) ? parsed : [parsed]).flatMap((m) => (m && typeof m === 'object' && 'id' in m && 'method' in m ? [(m as { id: RequestId }).id] : []));
  } catch {
    return [];
  }
}
