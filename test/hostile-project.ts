// A project under attack, shared by test/hardening.test.ts and bench/hardening.ts: the
// malicious MCP server over stdio (`evil`, `many` with 10,000 tools) and over HTTP (`hevil`),
// a scripted model that calls the tool the message names ("<tool> <json args>") and answers
// with the start of its result, and `oryx web` serving it. /health is polled while each run goes.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { tempProject } from '@oryxos/kernel/testing';
import { killAll, listening, type CliServer } from '../plugins/web/test/cli-helpers.ts';

export const MALICIOUS = path.resolve(import.meta.dirname, '../plugins/mcp/test/fixtures/malicious-server.mjs');
export const SECRET = 'sk-e2e-9f8e7d6c5b4a3f2e1d0c';
export const SECRET_ENV = { ORYX_E2E_TOKEN: SECRET };

export interface HostileProject {
  dir: string;
  web: CliServer;
  /** Runs `message` on a new session of `agent` over REST; resolves with the run's JSON. */
  run(agent: string, message: string): Promise<{ status: number; body: Record<string, any> }>;
  close(): Promise<void>;
}

const config = (httpPort: number) => `
import { defineConfig } from '@oryxos/kernel';
import { scripted } from '@oryxos/kernel/testing';
import sqlite from '@oryxos/plugin-sqlite';
import audit from '@oryxos/plugin-audit';
import sandbox from '@oryxos/plugin-sandbox';
import tools from '@oryxos/plugin-tools';
import mcp from '@oryxos/plugin-mcp';
import web from '@oryxos/plugin-web';

// "<tool> <json args>": call the tool; after its result, answer with the start of it.
const step = (request) => {
  const last = request.messages.at(-1);
  if (last.role === 'tool') return { text: 'result: ' + last.content.slice(0, 300) };
  const space = last.content.indexOf(' ');
  return { toolCalls: [{ name: last.content.slice(0, space), args: JSON.parse(last.content.slice(space + 1)) }] };
};

export default defineConfig({
  defaultAgent: 'stdio',
  plugins: [
    scripted(Array.from({ length: 10_000 }, () => step)),
    sqlite(), audit(), tools(),
    sandbox({ confine: false, files: { read: ['.'], write: ['.'] }, exec: { allow: [${JSON.stringify(process.execPath)}] }, http: { allow: ['http://127.0.0.1:${httpPort}'] } }),
    mcp({ servers: { hevil: { url: 'http://127.0.0.1:${httpPort}/mcp' }, many: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(MALICIOUS)}, '--tools', '10000'] } } }),
    web({ invokeTimeoutMs: 120000 }),
  ],
});
`;

const agent = (tools: string[]) => `---\ndescription: hostile\ntools: ${JSON.stringify(tools)}\n---\nCall tools.\n`;

/** Starts the HTTP fixture, writes the project and starts `oryx web` on it. */
export async function hostileProject(): Promise<HostileProject> {
  const http: ChildProcess = spawn(process.execPath, [MALICIOUS, '--http', '0'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    http.once('exit', () => reject(new Error('the HTTP fixture exited')));
    http.stdout!.on('data', (d) => { out += d; const m = /listening (\d+)/.exec(out); if (m) resolve(Number(m[1])); });
  });
  const dir = await tempProject('hostile-');
  await mkdir(path.join(dir, '.oryxos'), { recursive: true });
  await writeFile(path.join(dir, 'oryx.config.ts'), config(port));
  await writeFile(path.join(dir, '.oryxos', 'mcp_servers.yaml'),
    `servers:\n  evil:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(MALICIOUS)}, --token, "\${ORYX_E2E_TOKEN}"]\n`);
  for (const [name, tools] of Object.entries({ stdio: ['evil__*'], http: ['hevil__*'], many: ['many__*'], files: ['read_file', 'edit_file', 'write_file'] })) {
    await mkdir(path.join(dir, '.oryxos', 'agents', name), { recursive: true });
    await writeFile(path.join(dir, '.oryxos', 'agents', name, 'AGENT.md'), agent(tools));
  }
  const web = await listening(dir, [], SECRET_ENV);
  const headers = { authorization: `Bearer ${web.token}`, 'content-type': 'application/json' };
  return {
    dir,
    web,
    async run(agentName, message) {
      const created = await fetch(`${web.url}/api/sessions`, { method: 'POST', headers, body: JSON.stringify({ agent: agentName }) });
      const session = (await created.json()) as { id: string };
      const response = await fetch(`${web.url}/api/sessions/${session.id}/messages`, { method: 'POST', headers, body: JSON.stringify({ message }) });
      return { status: response.status, body: (await response.json()) as Record<string, any> };
    },
    async close() {
      await killAll([web]);
      http.kill();
    },
  };
}

/**
 * Polls `GET /health` every `everyMs` until `work` settles; returns the latency of every poll
 * (ms) and whether each one answered 200. Each poll waits for the previous one, so a blocked
 * event loop shows as one long poll.
 */
export async function healthDuring<T>(url: string, work: Promise<T>, everyMs = 20): Promise<{ result: T; latencies: number[]; failures: number }> {
  let done = false;
  const latencies: number[] = [];
  let failures = 0;
  const polling = (async () => {
    while (!done) {
      const started = performance.now();
      try {
        const r = await fetch(`${url}/health`);
        await r.text();
        if (r.status !== 200) failures++;
      } catch {
        failures++;
      }
      latencies.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  try {
    return { result: await work, latencies, failures };
  } finally {
    done = true;
    await polling;
  }
}
