// Runs tool calls through the real kernel: a scripted model asks for them, the real sandbox
// decides, the tools act on real files, processes and loopback servers. Not a test file.
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { STAGE, type Plugin, type ToolResult, type ToolResultInfo } from '@oryxos/kernel';
import { scripted, testKernel } from '@oryxos/kernel/testing';
import sandbox, { type SandboxOptions } from '@oryxos/plugin-sandbox';
import tools, { type ToolsOptions } from '../src/index.ts';

export interface Call { name: string; args: Record<string, unknown> }
export interface Outcome { status: ToolResultInfo['status']; content: string; result: ToolResult }

/** A temp project folder, removed by `cleanup`. */
export async function tempDir(prefix = 'oryx-tools-'): Promise<{ dir: string; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Runs the calls in one model turn and returns what afterTool saw, in call order. */
export async function run(dir: string, calls: Call[], options: { sandbox?: SandboxOptions; tools?: ToolsOptions; plugins?: Plugin[]; configFile?: string } = {}): Promise<Outcome[]> {
  const seen: Outcome[] = [];
  const probe: Plugin = {
    name: 'probe', version: '1.0.0', kernel: '^1',
    setup(k) {
      k.hooks.afterTool.tapPromise({ stage: STAGE.OBSERVE }, async (result, info) => {
        // In call order (c1, c2…): read-only calls of one turn run concurrently and may end in any order.
        seen[Number(info.call.id.slice(1)) - 1] = { status: info.status, content: result.content, result };
        return result;
      });
    },
  };
  const llm = scripted([{ toolCalls: calls.map((c, i) => ({ id: `c${i + 1}`, ...c })) }, { text: 'done' }]);
  const box = options.plugins ? [] : [sandbox(options.sandbox ?? { files: { read: ['.'], write: ['.'] } })];
  const t = await testKernel({ dir, plugins: [llm, ...box, ...(options.plugins ?? []), tools(options.tools), probe], ...(options.configFile ? { configFile: options.configFile } : {}) });
  try {
    await t.service.process({ agent: 'assistant', message: 'go' });
    // What afterTool saw is what the model received.
    const sent = llm.requests[1]!.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    if (JSON.stringify(sent) !== JSON.stringify(seen.map((s) => s.content))) throw new Error('the model did not receive what afterTool saw');
    return seen;
  } finally {
    await t.close();
  }
}

export async function one(dir: string, call: Call, options: Parameters<typeof run>[2] = {}): Promise<Outcome> {
  const [outcome] = await run(dir, [call], options);
  return outcome!;
}

export interface Server { url: string; port: number; hits: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[]; close(): Promise<void> }

/** A loopback HTTP server that records each request (with its body) before answering. */
export async function server(handler: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void): Promise<Server> {
  const self = { hits: [] } as unknown as Server;
  const s = http.createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    self.hits.push({ method: req.method!, url: req.url!, headers: req.headers, body });
    handler(req, res, body);
  });
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  self.port = (s.address() as AddressInfo).port;
  self.url = `http://127.0.0.1:${self.port}`;
  self.close = async () => { s.closeAllConnections(); s.close(); await once(s, 'close').catch(() => {}); };
  return self;
}
