import { compileToolSchema, uncheckedNote } from '@oryxos/schema-kit';
import type { Tool } from './types.ts';

/**
 * The problem with a call's arguments, or undefined: the tool's own `validate` when it has
 * one, else its schema (compiled on first use).
 */
export async function checkToolArgs(tool: Tool, args: Record<string, unknown>): Promise<string | undefined> {
  if (tool.validate) return tool.validate(args);
  const label = `tool "${tool.name}"${tool.plugin ? ` (plugin ${tool.plugin})` : ''}`;
  return (await compileToolSchema(tool.inputSchema, label)).check(args);
}

/**
 * Compiles the schema of every tool registered without its own `validate`, at start, so a bad
 * one stops the kernel naming the tool and plugin instead of failing a call later.
 */
export async function checkToolSchemas(tools: Iterable<Tool>, warn: (message: string) => void): Promise<void> {
  for (const tool of tools) {
    if (tool.validate) continue;
    const { unchecked } = await compileToolSchema(tool.inputSchema, `tool "${tool.name}" (plugin ${tool.plugin})`);
    if (unchecked.length) warn(uncheckedNote(tool.name, unchecked));
  }
}

