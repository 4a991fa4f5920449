import { OryxError } from '@oryxos/provider-spec';
import { compileSchema, SchemaError, type CompiledSchema, type Schema } from './index.ts';

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
export async function compileToolSchema(schema: Schema, label: string): Promise<CompiledSchema> {
  try {
    return await compileSchema(schema);
  } catch (error) {
    if (!(error instanceof SchemaError)) throw error;
    throw new OryxError('ORYX_E_TOOL_SCHEMA', `${label} has an invalid input schema: ${error.message}`, {
      cause: error, hint: 'Fix the tool\'s inputSchema (a JSON Schema object), or leave the tool out.', data: { tool: label },
    });
  }
}

/** The warning for patterns RE2 cannot run: the arguments are checked without them. */
export function uncheckedNote(tool: string, unchecked: string[]): string {
  return `tool "${tool}": pattern ${unchecked.map((p) => JSON.stringify(p)).join(', ')} is not checked by OryxOS `
    + '(a lookahead or backreference has no linear-time match); the tool still checks its own arguments';
}
