/**
 * @oryxos/schema-kit: shapes (a small validator without dependencies that also writes the JSON
 * Schema of what it accepts: options, frontmatter, tool arguments), and JSON Schema checks for
 * schemas that come from anywhere (an MCP server, a third-party plugin) — Ajv with ajv-formats (drafts 7, 2019-09 and 2020-12 by `$schema`), every
 * `pattern` run on RE2 so no schema can make a check hang, each schema compiled once, and the
 * first problem worded as `field: message`. It knows nothing of OryxOS; the kernel names the
 * tool in its errors.
 *
 * @example
 * import { compileSchema } from '@oryxos/schema-kit';
 * const { check } = await compileSchema({ type: 'object', required: ['path'] });
 * check({}); // 'path: is required'
 */
import type { ErrorObject, Options, ValidateFunction } from 'ajv';

export { shape, isShape, issueText, Shape, OptionalShape, type ShapeIssue, type Infer, type NumberBounds, type ObjectOf, type Props } from './shape.ts';
export { closest, didYouMean, lineOfKey, matchesToolPattern } from './suggest.ts';
export { definedOptions, validateOptions, unknownKeyNote, type OptionsSpec } from './options.ts';
export { canonicalJson, argsHash } from './canonical.ts';
export { escapeControls } from './escape.ts';
export { describeAction } from './describe-action.ts';
export { compileToolSchema, uncheckedNote } from './tool-schema.ts';

/** Checks a value against a compiled schema: the first problem as "field: message", or undefined. */
export type ArgsCheck = (args: unknown) => string | undefined;

/** A compiled schema, and the `pattern`s that are not checked (see {@link compileSchema}). */
export interface CompiledSchema { check: ArgsCheck; unchecked: string[] }

/** A JSON Schema object. */
export type Schema = Record<string, unknown>;

/** The largest schema (as JSON) this kit compiles; compiling costs time in proportion to its size. */
export const MAX_SCHEMA_CHARS = 100_000;

/** A schema that cannot be compiled; the message says why, without naming what it belongs to. */
export class SchemaError extends Error {
  override name = 'SchemaError';
}

type Re2 = { test(s: string): boolean };
interface Engine { compile(schema: Schema): CompiledSchema }

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
 * Compiles a schema once (cached by the schema object) and returns its check. A pattern RE2
 * cannot express (a lookahead, a backreference) is left out of the check and listed in
 * `unchecked`. An invalid schema — a keyword of the wrong type (`required: 5`), a `pattern`
 * that is no regular expression, an unresolvable `$ref`, more than {@link MAX_SCHEMA_CHARS} of
 * JSON, not an object at all — throws a {@link SchemaError} saying why.
 *
 * @example
 * const { check, unchecked } = await compileSchema({ type: 'string', pattern: '^(a+)+$' });
 * check('a'.repeat(50_000) + '!'); // '(arguments): must match pattern "^(a+)+$"', in linear time
 */
export async function compileSchema(schema: Schema): Promise<CompiledSchema> {
  const hit = cache.get(schema);
  if (hit) return hit;
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) throw new SchemaError('it is not a JSON object');
  const size = JSON.stringify(schema).length;
  if (size > MAX_SCHEMA_CHARS) throw new SchemaError(`it is ${size} characters of JSON, more than the ${MAX_SCHEMA_CHARS} OryxOS checks`);
  let compiled: CompiledSchema;
  try {
    compiled = (await (engine ??= load())).compile(schema);
  } catch (error) {
    throw new SchemaError((error instanceof Error ? error.message : String(error)).replace(/^schema is invalid: data\/?/, ''), { cause: error });
  }
  cache.set(schema, compiled);
  return compiled;
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
