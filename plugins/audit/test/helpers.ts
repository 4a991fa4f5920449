import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Tool } from '@oryxos/kernel';

export async function tempDir(prefix = 'oryx-audit-'): Promise<{ dir: string; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export const echo: Tool = {
  name: 'echo', description: 'Echo text back', source: 'plugin',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  async execute(args) { return `echo: ${args.text}`; },
};

export const fail: Tool = {
  name: 'fail', description: 'Always throws', source: 'builtin',
  inputSchema: { type: 'object', properties: {} },
  async execute() { throw new Error('kaput'); },
};

/** Reads a file through the sandbox; with no sandbox plugin the kernel denies it. */
export const guarded: Tool = {
  name: 'guarded', description: 'Reads a file', source: 'mcp',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  actions: (args) => [{ kind: 'file', op: 'read', path: String(args.path) }],
  async execute() { return 'should not run'; },
};

export const big: Tool = {
  name: 'big', description: 'Returns a lot', source: 'plugin',
  inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
  async execute(args) { return 'x'.repeat(Number(args.n)); },
};

export async function rejection(fn: () => unknown): Promise<any> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}
