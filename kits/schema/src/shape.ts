/**
 * Shapes: a small validator without dependencies for what the kernel and plugins check when a
 * command starts (plugin options, `oryx.config.ts`, AGENT.md frontmatter) and for tool
 * arguments. A shape checks a value, names the first problem by its path in words a person can
 * act on ("must be positive (was 0)", "must be removed"), and gives the JSON Schema of what it
 * accepts (for a tool's input schema). Plain objects, strings, numbers, booleans, literal
 * unions, arrays, records, unions and predicates: what options and arguments use, nothing more.
 * It replaces arktype on the start-up path, whose import alone costs more than a bare node start.
 *
 * @example
 * import { shape as s } from '@oryxos/schema-kit'; // also re-exported by @oryxos/kernel
 * const options = s.object({ url: s.string({ min: 1 }).optional(), busyTimeoutMs: s.integer({ min: 0 }).optional() });
 * s.check(options, { busyTimeoutMs: -1 }); // { path: ['busyTimeoutMs'], problem: 'must be non-negative (was -1)' }
 */
/** A JSON Schema object (what {@link Shape.json} gives). */
type JsonSchema = Record<string, unknown>;

/** One problem: where (keys and indexes from the root) and what, phrased to follow the field name. */
export interface ShapeIssue {
  path: (string | number)[];
  /** `must be …`: `must be positive (was 0)`, `must be removed` for a key the object does not take. */
  problem: string;
  /** For `must be removed`: the keys the object at that level takes, for "did you mean". */
  known?: string[];
}

const BRAND = Symbol.for('oryxos.shape');
declare const INFER: unique symbol;

/** The type a shape accepts. */
export type Infer<S> = S extends Shape<infer T> ? T : never;

/** A value's kind in an error message: `a string`, `an array`, `missing`… */
function kindOf(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const t = typeof value;
  if (t === 'boolean') return 'boolean';
  return `${/^[aeiou]/.test(t) ? 'an' : 'a'} ${t}`;
}

/** A primitive as written, for `(was …)`; anything else by its kind. */
function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return kindOf(value);
}

const issue = (path: (string | number)[], problem: string, known?: string[]): ShapeIssue => (known ? { path, problem, known } : { path, problem });

/** Base of every shape. Build them with the `shape` helpers ({@link shape}). */
export abstract class Shape<T> {
  declare readonly [INFER]: T;
  readonly [BRAND] = true;
  /** True for `.optional()`: the key may be left out of an object. */
  readonly isOptional: boolean = false;
  /** Shown in the JSON Schema. */
  description?: string;
  /** What the shape accepts, after `must be` (`a string`, `an integer`). */
  abstract readonly expected: string;
  /** The first problem with `value`, or undefined. */
  abstract issue(value: unknown, path: (string | number)[]): ShapeIssue | undefined;
  /** True when `value` is of the shape's kind (a string for a string shape), bounds aside: a union reports the problem of the branch of the right kind. */
  abstract accepts(value: unknown): boolean;
  protected abstract schema(): JsonSchema;

  /** The JSON Schema of what the shape accepts. */
  json(): JsonSchema {
    const schema = this.schema();
    return this.description ? { ...schema, description: this.description } : schema;
  }

  /** The same shape, as a key an object may leave out. */
  optional(): OptionalShape<T> { return new OptionalShape(this); }

  /** Also requires `test`; a value that fails it `must be ${expected}`. */
  refine(test: (value: T) => boolean, expected: string): Shape<T> { return new RefinedShape(this, test, expected); }

  /** A copy with a description for the JSON Schema. */
  describe(text: string): this {
    const copy = Object.create(Object.getPrototypeOf(this) as object, Object.getOwnPropertyDescriptors(this)) as this;
    copy.description = text;
    return copy;
  }
}

/** A shape an object may leave out. */
export class OptionalShape<T> extends Shape<T> {
  override readonly isOptional = true as const;
  constructor(readonly inner: Shape<T>) { super(); }
  get expected(): string { return this.inner.expected; }
  issue(value: unknown, path: (string | number)[]): ShapeIssue | undefined { return this.inner.issue(value, path); }
  accepts(value: unknown): boolean { return this.inner.accepts(value); }
  protected schema(): JsonSchema { return this.inner.json(); }
}

class StringShape extends Shape<string> {
  constructor(private readonly o: { min?: number; max?: number; pattern?: RegExp } = {}) { super(); }
  get expected(): string { return this.o.min === 1 ? 'a non-empty string' : 'a string'; }
  accepts(value: unknown): boolean { return typeof value === 'string'; }
  issue(value: unknown, path: (string | number)[]): ShapeIssue | undefined {
    if (typeof value !== 'string') return issue(path, `must be a string (was ${kindOf(value)})`);
    const { min, max, pattern } = this.o;
    if (min !== undefined && value.length < min) return issue(path, min === 1 ? 'must be non-empty' : `must be at least ${min} characters long (was ${value.length})`);
    if (max !== undefined && value.length > max) return issue(path, `must be at most ${max} characters long (was ${value.length})`);
    if (pattern && !pattern.test(value)) return issue(path, `must be matched by ${pattern.source} (was ${shown(value)})`);
    return undefined;
  }
  protected schema(): JsonSchema {
    const { min, max, pattern } = this.o;
    return { type: 'string', ...(min ? { minLength: min } : {}), ...(max !== undefined ? { maxLength: max } : {}), ...(pattern ? { pattern: pattern.source } : {}) };
  }
}

/** Bounds of a number: `min`/`max` inclusive, `above` exclusive (`above: 0` is "positive"). */
export interface NumberBounds { min?: number; max?: number; above?: number }

class NumberShape extends Shape<number> {
  constructor(private readonly integer: boolean, private readonly o: NumberBounds = {}) { super(); }
  get expected(): string { return this.integer ? 'an integer' : 'a number'; }
  accepts(value: unknown): boolean { return typeof value === 'number'; }
  issue(value: unknown, path: (string | number)[]): ShapeIssue | undefined {
    if (typeof value !== 'number' || Number.isNaN(value)) return issue(path, `must be a number (was ${Number.isNaN(value) ? 'NaN' : kindOf(value)})`);
    if (this.integer && !Number.isInteger(value)) return issue(path, `must be an integer (was ${value})`);
    const { min, max, above } = this.o;
    if (above !== undefined && !(value > above)) return issue(path, `must be ${above === 0 ? 'positive' : `more than ${above}`} (was ${value})`);
    if (min !== undefined && value < min) return issue(path, `must be ${min === 0 ? 'non-negative' : `at least ${min}`} (was ${value})`);
    if (max !== undefined && value > max) return issue(path, `must be at most ${max} (was ${value})`);
    return undefined;
  }
  protected schema(): JsonSchema {
    const { min, max, above } = this.o;
    return {
      type: this.integer ? 'integer' : 'number',
      ...(above !== undefined ? { exclusiveMinimum: above } : {}), ...(min !== undefined ? { minimum: min } : {}), ...(max !== undefined ? { maximum: max } : {}),
    };
  }
}

type Literal = string | number | boolean | null;

class LiteralShape<T extends Literal> extends Shape<T> {
  constructor(private readonly values: readonly T[]) { super(); }
  get expected(): string {
    const all = this.values.map((v) => JSON.stringify(v));
    return all.length === 1 ? all[0]! : `${all.slice(0, -1).join(', ')} or ${all.at(-1)}`;
  }
  accepts(value: unknown): boolean { return this.values.includes(value as T); }
  issue(value: unknown, path: (string | number)[]): ShapeIssue | undefined {
    return this.values.includes(value as T) ? undefined : issue(path, `must be ${this.expected} (was ${shown(value)})`);
  }
  protected schema(): JsonSchema {
    return this.values.length === 1 ? { const: this.values[0] } : { enum: [...this.values] };
  }
}

class BooleanShape extends Shape<boolean> {
  readonly expected = 'boolean';
  accepts(value: unknown): boolean { return typeof value === 'boolean'; }
  issue(value: unknown, path: (string | number)[]): ShapeIssue | undefined {
    return typeof value === 'boolean' ? undefined : issue(path, `must be boolean (was ${shown(value)})`);
  }
  protected schema(): JsonSchema { return { type: 'boolean' }; }
}

class ArrayShape<T> extends Shape<T[]> {
  constructor(private readonly item: Shape<T>, private readonly o: { min?: number } = {}) { super(); }
  get expected(): string { return this.o.min ? `an array of at least ${this.o.min} item${this.o.min === 1 ? '' : 's'}` : 'an array'; }
  accepts(value: unknown): boolean { return Array.isArray(value); }
  issue(value: unknown, path: (string | number)[]): ShapeIssue | undefined {
    if (!Array.isArray(value)) return issue(path, `must be an array (was ${kindOf(value)})`);
    const { min } = this.o;
    if (min !== undefined && value.length < min) return issue(path, min === 1 ? 'must be non-empty (was an empty array)' : `must have at least ${min} items (was ${value.length})`);
    for (let i = 0; i < value.length; i++) {
      const found = this.item.issue(value[i], [...path, i]);
      if (found) return found;
    }
    return undefined;
  }
  protected schema(): JsonSchema { return { type: 'array', items: this.item.json(), ...(this.o.min ? { minItems: this.o.min } : {}) }; }
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The properties of an object shape: each key's shape, `.optional()` for a key that may be left out. */
export type Props = Record<string, Shape<unknown>>;
type Simplify<T> = { [K in keyof T]: T[K] } & {};
/** The object type of {@link Props}. */
export type ObjectOf<P extends Props> = Simplify<
  { [K in keyof P as P[K] extends OptionalShape<unknown> ? never : K]: Infer<P[K]> }
  & { [K in keyof P as P[K] extends OptionalShape<unknown> ? K : never]?: Infer<P[K]> }
>;

class ObjectShape<P extends Props> extends Shape<ObjectOf<P>> {
  readonly expected = 'an object';
  constructor(readonly props: P, private readonly unknownKeys: 'reject' | 'ignore') { super(); }
  /** The keys the object takes. */
  get keys(): string[] {
    const keys = Object.keys(this.props);
    return [...keys.filter((k) => !this.props[k]!.isOptional).sort(), ...keys.filter((k) => this.props[k]!.isOptional).sort()];
  }
  accepts(value: unknown): boolean { return isPlainObject(value); }
  issue(value: unknown, path: (string | number)[]): ShapeIssue | undefined {
    if (!isPlainObject(value)) return issue(path, `must be an object (was ${kindOf(value)})`);
    if (this.unknownKeys === 'reject') {
      // An unknown key first: it is most often a typo of the key a "missing" problem would name.
      const stray = Object.keys(value).find((k) => !Object.hasOwn(this.props, k));
      if (stray !== undefined) return issue([...path, stray], 'must be removed', this.keys);
    }
    for (const [key, prop] of Object.entries(this.props)) {
      const v = Object.hasOwn(value, key) ? value[key] : undefined;
      if (v === undefined && prop.isOptional) continue;
      const found = prop.issue(v, [...path, key]);
      if (found) return found;
    }
    return undefined;
  }
  protected schema(): JsonSchema {
    const entries = Object.entries(this.props);
    const required = entries.filter(([, p]) => !p.isOptional).map(([k]) => k);
    return {
      type: 'object',
      properties: Object.fromEntries(entries.map(([k, p]) => [k, p.json()])),
      ...(required.length ? { required } : {}),
      ...(this.unknownKeys === 'reject' ? { additionalProperties: false } : {}),
    };
  }
}

class RecordShape<T> extends Shape<Record<string, T>> {
  readonly expected = 'an object';
  constructor(private readonly value: Shape<T>) { super(); }
  accepts(value: unknown): boolean { return isPlainObject(value); }
  issue(value: unknown, path: (string | number)[]): ShapeIssue | undefined {
    if (!isPlainObject(value)) return issue(path, `must be an object (was ${kindOf(value)})`);
    for (const [key, v] of Object.entries(value)) {
      const found = this.value.issue(v, [...path, key]);
      if (found) return found;
    }
    return undefined;
  }
  protected schema(): JsonSchema { return { type: 'object', additionalProperties: this.value.json() }; }
}

class UnionShape<T> extends Shape<T> {
  constructor(private readonly branches: Shape<unknown>[]) { super(); }
  get expected(): string {
    const all = this.branches.map((b) => b.expected);
    return `${all.slice(0, -1).join(', ')} or ${all.at(-1)}`;
  }
  accepts(value: unknown): boolean { return this.branches.some((b) => b.accepts(value)); }
  issue(value: unknown, path: (string | number)[]): ShapeIssue | undefined {
    let first: ShapeIssue | undefined;
    for (const branch of this.branches) {
      const found = branch.issue(value, path);
      if (!found) return undefined;
      // The problem of the branch of the value's kind ("must be non-empty", not "must be a string or …").
      if (!first && branch.accepts(value)) first = found;
    }
    return first ?? issue(path, `must be ${this.expected} (was ${shown(value)})`);
  }
  protected schema(): JsonSchema { return { anyOf: this.branches.map((b) => b.json()) }; }
}

class RefinedShape<T> extends Shape<T> {
  constructor(private readonly base: Shape<T>, private readonly test: (value: T) => boolean, readonly expected: string) { super(); }
  accepts(value: unknown): boolean { return this.base.accepts(value); }
  issue(value: unknown, path: (string | number)[]): ShapeIssue | undefined {
    return this.base.issue(value, path) ?? (this.test(value as T) ? undefined : issue(path, `must be ${this.expected} (was ${shown(value)})`));
  }
  protected schema(): JsonSchema { return this.base.json(); }
}

class CustomShape<T> extends Shape<T> {
  constructor(readonly expected: string, private readonly test: (value: unknown) => boolean, private readonly jsonSchema: JsonSchema) { super(); }
  accepts(value: unknown): boolean { return this.test(value); }
  issue(value: unknown, path: (string | number)[]): ShapeIssue | undefined {
    return this.test(value) ? undefined : issue(path, `must be ${this.expected} (was ${shown(value)})`);
  }
  protected schema(): JsonSchema { return this.jsonSchema; }
}

/**
 * Builders of {@link Shape}s, and `check`. Objects reject unknown keys unless told `ignore`.
 *
 * @example
 * const args = s.object({ path: s.string({ min: 1 }), depth: s.integer({ min: 1, max: 10 }).optional() });
 */
export const shape = {
  string: (o?: { min?: number; max?: number; pattern?: RegExp }): Shape<string> => new StringShape(o),
  number: (o?: NumberBounds): Shape<number> => new NumberShape(false, o),
  integer: (o?: NumberBounds): Shape<number> => new NumberShape(true, o),
  boolean: (): Shape<boolean> => new BooleanShape(),
  /** One of the values given: `literal('refuse', 'deny')`. */
  literal: <const T extends Literal>(...values: T[]): Shape<T> => new LiteralShape<T>(values),
  /** An array of `item`s, at least `min` of them. */
  array: <T>(item: Shape<T>, o?: { min?: number }): Shape<T[]> => new ArrayShape(item, o),
  /** An object of these keys; `keys` lists them (required ones first, each group sorted), `props` gives each one's shape. */
  object: <P extends Props>(props: P, o: { unknownKeys?: 'reject' | 'ignore' } = {}): Shape<ObjectOf<P>> & { readonly keys: string[]; readonly props: P } =>
    new ObjectShape(props, o.unknownKeys ?? 'reject'),
  /** An object of any keys, each value of `value`'s shape (not an array). */
  record: <T>(value: Shape<T>): Shape<Record<string, T>> => new RecordShape(value),
  union: <S extends Shape<unknown>[]>(...branches: S): Shape<Infer<S[number]>> => new UnionShape(branches),
  /** Anything `test` accepts; a value it refuses `must be ${expected}`. */
  custom: <T = unknown>(expected: string, test: (value: unknown) => boolean, json: JsonSchema = {}): Shape<T> => new CustomShape<T>(expected, test, json),
  /** Any value. */
  unknown: (): Shape<unknown> => new CustomShape<unknown>('anything', () => true, {}),
  /** The first problem with `value`, or undefined when it fits. */
  check: (s: Shape<unknown>, value: unknown): ShapeIssue | undefined => s.issue(value, []),
};

/**
 * An issue as one line: the dotted field, then the problem (`limit must be at most 50 (was 80)`).
 *
 * @example
 * issueText({ path: ['limits', 'maxChars'], problem: 'must be positive (was 0)' }) // 'limits.maxChars must be positive (was 0)'
 */
export function issueText(found: ShapeIssue): string {
  return found.path.length ? `${found.path.join('.')} ${found.problem}` : found.problem;
}

/** True for a {@link Shape} (of this kernel or another copy of it). */
export function isShape(value: unknown): value is Shape<unknown> {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}
