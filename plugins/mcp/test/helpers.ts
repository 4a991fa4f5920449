// Shared test helpers: where the real MCP servers live, a kernel with the plugin, process checks.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { allowAll, testKernel, type TestAgent, type TestKernel } from '@oryxos/kernel/testing';
import type { Plugin } from '@oryxos/kernel';
import mcp, { type McpOptions } from '../src/index.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '../../..');
const mcpModules = path.join(repoRoot, 'node_modules', '@modelcontextprotocol');

/** The bin entry point of an installed package (its package.json `bin`). */
function bin(pkg: string): string {
  const dir = path.join(mcpModules, pkg);
  const json = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { bin: string | Record<string, string> };
  const entry = typeof json.bin === 'string' ? json.bin : Object.values(json.bin)[0]!;
  return path.join(dir, entry);
}

export const EVERYTHING = bin('server-everything');
export const FILESYSTEM = bin('server-filesystem');
export const FIXTURE = path.join(here, 'fixtures', 'fixture-server.mjs');
export const NODE = process.execPath;

/** A stdio server entry for our fixture, with extra argv flags. */
export function fixture(...flags: string[]) {
  return { command: NODE, args: [FIXTURE, ...flags] };
}

/** A kernel with allowAll() + mcp(options) + the given plugins, on a fresh temp project. */
export async function mcpKernel(options: McpOptions, extra: { plugins?: Plugin[]; agents?: Record<string, TestAgent | string>; dir?: string } = {}): Promise<TestKernel> {
  return testKernel({
    plugins: [allowAll(), mcp(options), ...(extra.plugins ?? [])],
    agents: extra.agents ?? { assistant: { tools: ['*'] } },
    ...(extra.dir ? { dir: extra.dir } : {}),
  });
}

/** A free loopback port (for servers that take PORT rather than listening on 0). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** True while a process runs (a zombie counts as ended: this machine's init may never reap orphans). */
export function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return false;
  }
}

/** Polls until `check` is truthy (bounded), returning its value. */
export async function waitFor<T>(check: () => T | Promise<T>, what: string, timeoutMs = 10_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
