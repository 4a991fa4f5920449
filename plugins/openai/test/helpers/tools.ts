import type { Plugin, Tool } from '@oryxos/kernel';

/** A tool plugin for tests: `echo` returns its text and counts its calls. */
export function echoTools(): Plugin & { calls: Record<string, unknown>[] } {
  const calls: Record<string, unknown>[] = [];
  const echo: Tool = {
    name: 'echo', description: 'Echo text back', source: 'plugin',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
    async execute(args) { calls.push(args); return `echo: ${args.text}`; },
  };
  return { name: 'test-tools', version: '1.0.0', kernel: '^1', calls, setup(k) { k.registerTool(echo); } };
}
