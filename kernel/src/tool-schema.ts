import { compileSchema, SchemaError, type CompiledSchema } from '@oryxos/schema-kit';
import { OryxError } from './errors.ts';
import type { JsonSchema, Tool } from './types.ts';

export { MAX_SCHEMA_CHARS, type ArgsCheck, type CompiledSchema } from '@oryxos/schema-kit';

/**
 * Compiles a tool's input schema once (with `@oryxos/schema-kit`: Ajv, every `pattern` on RE2)
 * and returns its check. An invalid schema — a keyword of the wrong type (`required: 5`), a
 * `pattern` that is no regular expression, an unresolvable `$ref`, more than
 * {@link MAX_SCHEMA_CHARS} of JSON — is `ORYX_E_TOOL_SCHEMA` naming `label` (the tool and its
 * plugin or server).
 *
 * @example
 * const { check } = await compileToolSchema({ type: 'object', required: ['path'] }, 'tool "read" of MCP server "fs"');
 * check({}); // 'path: is required'
 */
export async function compileToolSchema(schema: JsonSchema, label: string): Promise<CompiledSchema> {
  try {
    return await compileSchema(schema);
  } catch (error) {
    if (!(error instanceof SchemaError)) throw error;
    throw new OryxError('ORYX_E_TOOL_SCHEMA', `${label} has an invalid input schema: ${error.message}`, {
      cause: error, hint: 'Fix the tool\'s inputSchema (a JSON Schema object), or leave the tool out.', data: { tool: label },
    });
  }
}

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

/** The warning for patterns RE2 cannot run: the arguments are checked without them. */
export function uncheckedNote(tool: string, unchecked: string[]): string {
  return `tool "${tool}": pattern ${unchecked.map((p) => JSON.stringify(p)).join(', ')} is not checked by OryxOS `
    + '(a lookahead or backreference has no linear-time match); the tool still checks its own arguments';
}
