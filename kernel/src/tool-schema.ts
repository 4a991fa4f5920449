import type { ErrorObject, Options, ValidateFunction } from 'ajv';
import { OryxError, errorMessage } from './errors.ts';
import type { JsonSchema, Tool } from './types.ts';

/** Checks tool arguments against a compiled schema: the first problem as "field: message", or undefined. */
export type ArgsCheck = (args: unknown) => string | undefined;

/** A compiled tool schema, and the `pattern`s that are not checked (see {@link compileToolSchema}). */
export interface CompiledSchema { check: ArgsCheck; unchecked: string[] }

/** The largest schema (as JSON) the kernel compiles; compiling costs time in proportion to its size. */
export const MAX_SCHEMA_CHARS = 100_000;

type Re2 = { test(s: string): boolean };
interface Engine { compile(schema: JsonSchema): CompiledSchema }

let engine: Promise<Engine> | undefined;
const cache = new WeakMap<object, CompiledSchema>();

/**
 * Ajv (with ajv-formats), loaded on first use. Every `pattern` runs on RE2 (re2js), which
 * matches in linear time whatever the pattern, so no schema can make a check hang. A pattern
 * RE2 cannot express (a lookahead, a backreference) is left unchecked and reported; a pattern
 * that is no regular expression at all makes the schema invalid.
 */
async function load(): Promise<Engine> {
  const [{ RE2JS }, ajv, { Ajv2019 }, { Ajv2020 }, formats] = await Promise.all([
    import('re2js'), import('ajv'), import('ajv/dist/2019.js'), import('ajv/dist/2020.js'), import('ajv-formats'),
  ]);
  const patterns = new Map<string, Re2 | null>();
  const re2 = (pattern: string): Re2 | null => {
    let re = patterns.get(pattern);
    if (re === undefined) {
      try { re = RE2JS.compile(RE2JS.translateRegExp(pattern), RE2JS.LOOKBEHINDS); } catch {
        new RegExp(pattern, 'u'); // throws for what is not a regular expression at all
        re = null;
      }
      if (patterns.size > 10_000) patterns.clear();
      patterns.set(pattern, re);
    }
    return re;
  };
  const regExp = Object.assign((pattern: string) => re2(pattern) ?? { test: () => true }, { code: 're2js' });
  const options: Options = { strict: false, allErrors: false, verbose: true, logger: false, code: { regExp } };
  const add = <T extends InstanceType<typeof ajv.Ajv>>(a: T): T => { formats.default.default(a); return a; };
  const draft7 = add(new ajv.Ajv(options));
  const drafts = { 2019: add(new Ajv2019(options)), 2020: add(new Ajv2020(options)) };
  return {
    compile(schema) {
      const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
      const which = dialect.includes('2020-12') ? drafts[2020] : dialect.includes('2019-09') ? drafts[2019] : undefined;
      // Draft 7 rules for every other dialect, its $schema left out (Ajv knows no other meta-schema).
      const own = which ?? draft7;
      const input = which || !dialect || dialect.includes('draft-07') ? schema : { ...schema, $schema: undefined };
      const unchecked = [...collectPatterns(input)].filter((p) => re2(p) === null);
      const validate: ValidateFunction = own.compile(input);
      own.removeSchema(input); // each tool list brings new objects: keep none in Ajv's registry
      return { check: (args) => (validate(args) ? undefined : describe(validate.errors?.[0])), unchecked };
    },
  };
}

/**
 * Compiles a tool's input schema once (cached by the schema object) and returns its check.
 * An invalid schema — a keyword of the wrong type (`required: 5`), a `pattern` that is no
 * regular expression, an unresolvable `$ref`, more than {@link MAX_SCHEMA_CHARS} of JSON — is
 * `ORYX_E_TOOL_SCHEMA` naming `label` (the tool and its plugin or server).
 *
 * @example
 * const { check } = await compileToolSchema({ type: 'object', required: ['path'] }, 'tool "read" of MCP server "fs"');
 * check({}); // 'path: is required'
 */
export async function compileToolSchema(schema: JsonSchema, label: string): Promise<CompiledSchema> {
  const hit = cache.get(schema);
  if (hit) return hit;
  const invalid = (why: string, cause?: unknown) => new OryxError('ORYX_E_TOOL_SCHEMA', `${label} has an invalid input schema: ${why}`, {
    cause, hint: 'Fix the tool\'s inputSchema (a JSON Schema object), or leave the tool out.', data: { tool: label },
  });
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) throw invalid('it is not a JSON object');
  const size = JSON.stringify(schema).length;
  if (size > MAX_SCHEMA_CHARS) throw invalid(`it is ${size} characters of JSON, more than the ${MAX_SCHEMA_CHARS} the kernel checks`);
  let compiled: CompiledSchema;
  try {
    compiled = (await (engine ??= load())).compile(schema);
  } catch (error) {
    throw invalid(errorMessage(error).replace(/^schema is invalid: data\/?/, ''), error);
  }
  cache.set(schema, compiled);
  return compiled;
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

function* collectPatterns(schema: unknown): Generator<string> {
  if (!schema || typeof schema !== 'object') return;
  if (Array.isArray(schema)) { for (const s of schema) yield* collectPatterns(s); return; }
  const s = schema as Record<string, unknown>;
  if (typeof s.pattern === 'string') yield s.pattern;
  if (s.patternProperties && typeof s.patternProperties === 'object') yield* Object.keys(s.patternProperties);
  for (const [key, value] of Object.entries(s)) if (key !== 'enum' && key !== 'const' && key !== 'default' && key !== 'examples') yield* collectPatterns(value);
}

function describe(e: ErrorObject | undefined): string {
  if (!e) return '(arguments): do not match the schema';
  const at = e.instancePath.split('/').slice(1).map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((p, k) => (/^\d+$/.test(k) ? `${p}[${k}]` : p ? `${p}.${k}` : k), '');
  const field = (key: unknown) => (at ? `${at}.${String(key)}` : String(key));
  const where = at || '(arguments)';
  switch (e.keyword) {
    case 'required': return `${field(e.params.missingProperty)}: is required`;
    case 'additionalProperties': {
      const allowed = Object.keys((e.parentSchema?.properties as object | undefined) ?? {});
      return `${field(e.params.additionalProperty)}: is not an allowed field (allowed: ${allowed.join(', ') || 'none'})`;
    }
    case 'type': return `${where}: must be ${String(e.params.type).replace(',', ' or ')} (got ${e.data === null ? 'null' : Array.isArray(e.data) ? 'array' : typeof e.data})`;
    case 'enum': return `${where}: must be one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const': return `${where}: must be ${JSON.stringify(e.params.allowedValue)}`;
    default: return `${where}: ${e.message ?? 'does not match the schema'}`;
  }
}
