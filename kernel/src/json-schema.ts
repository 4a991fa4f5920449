import type { JsonSchema } from './types.ts';

/**
 * Checks a value against the JSON Schema keywords tool schemas use in practice (type,
 * properties, required, additionalProperties, items, enum, const, anyOf/oneOf/allOf, string
 * and number bounds). Returns the first problem as "field: message", or undefined.
 * Unknown keywords are ignored rather than guessed at.
 */
export function validateJsonSchema(schema: JsonSchema, value: unknown, at = ''): string | undefined {
  const where = at || '(arguments)';
  const s = schema as Record<string, any>;
  if (s.const !== undefined && JSON.stringify(s.const) !== JSON.stringify(value)) return `${where}: must be ${JSON.stringify(s.const)}`;
  if (Array.isArray(s.enum) && !s.enum.some((e: unknown) => JSON.stringify(e) === JSON.stringify(value))) {
    return `${where}: must be one of ${s.enum.map((e: unknown) => JSON.stringify(e)).join(', ')}`;
  }
  if (s.type !== undefined) {
    const types: string[] = Array.isArray(s.type) ? s.type : [s.type];
    if (!types.some((t) => isType(value, t))) return `${where}: must be ${types.join(' or ')} (got ${typeName(value)})`;
  }
  for (const sub of s.allOf ?? []) { const e = validateJsonSchema(sub, value, at); if (e) return e; }
  if (Array.isArray(s.anyOf) && !s.anyOf.some((sub: JsonSchema) => !validateJsonSchema(sub, value, at))) {
    return validateJsonSchema(s.anyOf[0], value, at) ?? `${where}: matches none of the allowed shapes`;
  }
  if (Array.isArray(s.oneOf) && s.oneOf.filter((sub: JsonSchema) => !validateJsonSchema(sub, value, at)).length !== 1) {
    return `${where}: must match exactly one of the allowed shapes`;
  }
  if (typeof value === 'string') {
    if (typeof s.minLength === 'number' && value.length < s.minLength) return `${where}: must be at least ${s.minLength} characters`;
    if (typeof s.maxLength === 'number' && value.length > s.maxLength) return `${where}: must be at most ${s.maxLength} characters`;
    if (typeof s.pattern === 'string' && !new RegExp(s.pattern, 'u').test(value)) return `${where}: must match ${s.pattern}`;
  }
  if (typeof value === 'number') {
    if (typeof s.minimum === 'number' && value < s.minimum) return `${where}: must be >= ${s.minimum}`;
    if (typeof s.maximum === 'number' && value > s.maximum) return `${where}: must be <= ${s.maximum}`;
    if (typeof s.exclusiveMinimum === 'number' && value <= s.exclusiveMinimum) return `${where}: must be > ${s.exclusiveMinimum}`;
    if (typeof s.exclusiveMaximum === 'number' && value >= s.exclusiveMaximum) return `${where}: must be < ${s.exclusiveMaximum}`;
  }
  if (Array.isArray(value)) {
    if (typeof s.minItems === 'number' && value.length < s.minItems) return `${where}: must have at least ${s.minItems} items`;
    if (typeof s.maxItems === 'number' && value.length > s.maxItems) return `${where}: must have at most ${s.maxItems} items`;
    if (s.items && typeof s.items === 'object') {
      for (let i = 0; i < value.length; i++) {
        const e = validateJsonSchema(s.items, value[i], `${at}[${i}]`);
        if (e) return e;
      }
    }
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>;
    for (const key of s.required ?? []) {
      if (obj[key] === undefined) return `${join(at, key)}: is required`;
    }
    const props: Record<string, JsonSchema> = s.properties ?? {};
    for (const [key, v] of Object.entries(obj)) {
      if (props[key]) {
        if (v === undefined) continue;
        const e = validateJsonSchema(props[key], v, join(at, key));
        if (e) return e;
      } else if (s.additionalProperties === false) {
        return `${join(at, key)}: is not an allowed field (allowed: ${Object.keys(props).join(', ') || 'none'})`;
      } else if (s.additionalProperties && typeof s.additionalProperties === 'object') {
        const e = validateJsonSchema(s.additionalProperties, v, join(at, key));
        if (e) return e;
      }
    }
  }
  return undefined;
}

const join = (at: string, key: string) => (at ? `${at}.${key}` : key);

function isType(value: unknown, t: string): boolean {
  switch (t) {
    case 'string': return typeof value === 'string';
    case 'number': return typeof value === 'number' && Number.isFinite(value);
    case 'integer': return Number.isInteger(value);
    case 'boolean': return typeof value === 'boolean';
    case 'null': return value === null;
    case 'array': return Array.isArray(value);
    case 'object': return typeof value === 'object' && value !== null && !Array.isArray(value);
    default: return true;
  }
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
