import { OryxError } from '@oryxos/provider-spec';
import { shape as s, type Shape, type ShapeIssue } from './shape.ts';
import { didYouMean } from './suggest.ts';

/**
 * Factory options as a plugin validates them: an entry given as `undefined` counts as not set
 * (`apiKey: process.env.X` with X unset), and no options at all as `{}`. Anything that is not
 * a plain object passes through, for the shape to reject.
 *
 * @example
 * definedOptions({ apiKey: undefined, model: 'x' }) // { model: 'x' }
 */
export function definedOptions(options: unknown): unknown {
  if (!options || typeof options !== 'object' || Array.isArray(options)) return options ?? {};
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
}

/** Who a {@link validateOptions} error is about: the factory name, its error code, an example call. */
export interface OptionsSpec {
  /** The factory name, also the package suffix: `sqlite` for `sqlite()` in `@oryxos/plugin-sqlite`. */
  plugin: string;
  /** The plugin's `ORYX_E_<PLUGIN>_OPTIONS` code. */
  code: string;
  /** A valid call, shown when the options are not an object: `sqlite({ url: "file:x.db" })`. */
  example: string;
}

/**
 * Validates a plugin factory's options at once: applies {@link definedOptions}, checks them
 * against a shape and returns them, or throws `spec.code` naming the first bad field (dotted
 * path, or `(options)` for the whole value) in the message, the hint and `data.field`. An
 * unknown key also lists the known ones at its level, with the closest one, since that is most
 * often a typo.
 *
 * @example
 * const options = s.object({ busyTimeoutMs: s.integer({ min: 0 }).optional() });
 * const o = validateOptions(options, raw, { plugin: 'sqlite', code: 'ORYX_E_SQLITE_OPTIONS', example: 'sqlite({ busyTimeoutMs: 5000 })' });
 * // sqlite({ busyTimeoutMs: -1 }) throws: sqlite(): option busyTimeoutMs must be non-negative (was -1)
 */
export function validateOptions<T>(schema: Shape<T>, options: unknown, spec: OptionsSpec): T {
  const value = definedOptions(options);
  const found = s.check(schema, value);
  if (!found) return value as T;
  const field = found.path.length ? found.path.join('.') : '(options)';
  const whole = field === '(options)';
  throw new OryxError(spec.code, `${spec.plugin}(): ${whole ? 'options' : `option ${field}`} ${found.problem}${unknownKeyNote(found)}`, {
    hint: whole
      ? `Call ${spec.plugin}() with an options object, e.g. ${spec.example}.`
      : `Fix ${field} in ${spec.plugin}({...}) in oryx.config.ts; see the option table in the @oryxos/plugin-${spec.plugin} README.`,
    data: { field },
  });
}

/**
 * For an unknown key (most often a typo): the closest known key and the known ones at that level.
 *
 * @example
 * unknownKeyNote({ path: ['defaultAgnet'], problem: 'must be removed', known: ['defaultAgent'] }) // ' (did you mean "defaultAgent"?) (known options: defaultAgent)'
 */
export function unknownKeyNote(found: ShapeIssue, what = 'options'): string {
  if (!found.known?.length || !found.path.length) return '';
  const { path, known } = found;
  return `${didYouMean(String(path.at(-1)), known)} (known ${path.length > 1 ? `keys of ${path.slice(0, -1).join('.')}` : what}: ${known.join(', ')})`;
}
