/**
 * MCP over Streamable HTTP for the web plugin to mount (`/mcp` by default): one MCP server and
 * transport per MCP session (`Mcp-Session-Id`), made by the initialize request; the web plugin's
 * token, Host and Origin checks have run before a request gets here.
 */
import { randomUUID } from 'node:crypto';
import type { McpHttpEndpoint } from '@oryxos/contracts';
import type { PluginContext } from '@oryxos/kernel';
import type { McpDoor } from './door.ts';

/** How long a client waits before it reconnects to a stream that ended (the SSE `retry` field). */
const RETRY_MS = 1000;

/** A JSON-RPC error answer without an id (the request was refused before it was read). */
function refusal(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), { status, headers: { 'content-type': 'application/json' } });
}

/**
 * The endpoint; the SDK loads with its first request.
 *
 * @example
 * ctx.provide('mcpHttp', httpEndpoint(door, ctx, '/mcp', 1_800_000));
 */
export function httpEndpoint(door: McpDoor, ctx: PluginContext, path: string, idleMs: number): McpHttpEndpoint {
  const sessions = new Map<string, { handle(request: Request): Promise<Response>; used: number; busy: number; close(): Promise<void> }>();
  /** Sessions a client left without DELETE would pile up: those idle for `idleMs` are closed when a new one starts. */
  const sweep = async () => {
    const now = Date.now();
    for (const [sid, session] of sessions) {
      if (session.busy === 0 && now - session.used > idleMs) { sessions.delete(sid); await session.close().catch(() => {}); }
    }
  };
  return {
    path,
    async handle(request, context) {
      const id = request.headers.get('mcp-session-id');
      if (id) {
        const session = sessions.get(id);
        // The spec's answer to a session this server does not know (ended, idle, or another process's): start again.
        if (!session) return refusal(404, -32001, 'Session not found: initialize a new one');
        session.used = Date.now();
        session.busy += 1;
        try { return await session.handle(request); } finally { session.busy -= 1; session.used = Date.now(); }
      }
      if (!door.accepting) return refusal(503, -32000, 'The OryxOS MCP server is stopping');
      await sweep();
      const [{ WebStandardStreamableHTTPServerTransport }, { createServer }, { SessionEventStore }] = await Promise.all([
        import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'), import('./server.ts'), import('./event-store.ts'),
      ]);
      // A tool call answers on a stream after its request has returned: it keeps the session busy until it ends.
      const server = await createServer(door, ctx, {
        ...(context.user ? { user: context.user } : {}),
        busy: (delta) => {
          const mine = transport.sessionId ? sessions.get(transport.sessionId) : undefined;
          if (mine) { mine.busy += delta; mine.used = Date.now(); }
        },
      });
      let resolveClosed!: () => void;
      const closed = new Promise<void>((resolve) => { resolveClosed = resolve; });
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        // A client whose connection dropped mid-call reconnects with Last-Event-ID and gets the rest.
        eventStore: new SessionEventStore(), retryInterval: RETRY_MS,
        onsessioninitialized: (sid) => { sessions.set(sid, { handle: (r) => transport.handleRequest(r), used: Date.now(), busy: 0, close: () => server.close() }); },
        onsessionclosed: (sid) => { sessions.delete(sid); },
      });
      const previous = server.server.onclose;
      server.server.onclose = () => {
        previous?.();
        if (transport.sessionId) sessions.delete(transport.sessionId);
        resolveClosed();
      };
      await server.connect(transport);
      door.keep({ closed, close: () => server.close() });
      const response = await transport.handleRequest(request);
      // Not an initialize request: no session was made, so nothing stays open for it.
      if (!transport.sessionId) await server.close();
      return response;
    },
  };
}
