/**
 * A Streamable HTTP MCP server on loopback, made with the MCP SDK's own server and transport: one
 * tool, `echo {text}`, and every HTTP request it gets recorded with its headers and JSON-RPC
 * method, so a test sees the `traceparent` a tools/call carried (a copy of the otel plugin's test server: tests import no other package's tests).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

export interface McpHit { method: string; rpc?: string; headers: IncomingHttpHeaders }
export interface McpHttpServer { url: string; hits: McpHit[]; close(): Promise<void> }

export async function mcpHttpServer(): Promise<McpHttpServer> {
  const mcp = new Server({ name: 'echo-http', version: '1.0.0' }, { capabilities: { tools: {} } });
  mcp.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [{ name: 'echo', description: 'Echoes text', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }],
  }));
  mcp.setRequestHandler(CallToolRequestSchema, async (req) => ({ content: [{ type: 'text', text: `echo: ${String(req.params.arguments?.text)}` }] }));
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), enableJsonResponse: true });
  await mcp.connect(transport);
  const hits: McpHit[] = [];
  const http = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try { body = text ? JSON.parse(text) : undefined; } catch { body = undefined; }
    hits.push({ method: req.method!, ...(body && typeof body === 'object' && 'method' in body ? { rpc: String((body as { method: unknown }).method) } : {}), headers: req.headers });
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    hits,
    async close() {
      await mcp.close().catch(() => {});
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}
