import { type, type Type } from 'arktype';
import { OryxError, type JsonSchema, type SandboxAction, type Tool, type ToolContext, type ToolResult, type ToolSource } from '@oryxos/kernel';

/** A tool typed by its arktype argument definition. */
export interface ToolDefinition<A extends Type<object>> {
  name: string;
  description: string;
  /** Where it comes from, as `oryx tools` shows it. Default `plugin`; the built-in tools say `builtin`. */
  source?: ToolSource;
  /** The arguments. The model's JSON Schema and the validation both come from it. */
  args: A;
  /** What each argument means, for the model; every key must be a property of `args`. */
  describe: Partial<Record<keyof A['infer'] & string, string>>;
  timeoutMs?: number;
  /** `false` for a tool that must run alone (it writes or runs something): never at the same time as another call. */
  parallel?: boolean;
  actions?(args: A['infer'], ctx: ToolContext): SandboxAction[] | Promise<SandboxAction[]>;
  execute(args: A['infer'], ctx: ToolContext): Promise<ToolResult | string>;
}

/**
 * Turns a definition into a kernel `Tool`: the JSON Schema is generated from the arktype
 * type (`toJsonSchema()`) and `validate` runs the same type, so what the model is told and
 * what is checked never drift. An argument with a predicate JSON Schema cannot express, or a
 * `describe` key that names no argument, is `ORYX_E_PLUGIN_INVALID` naming the tool.
 *
 * @example
 * import { type } from 'arktype';
 * import { defineTool } from '@oryxos/plugin-kit';
 * const echo = defineTool({
 *   name: 'echo', description: 'Echo text', args: type({ text: 'string', '+': 'reject' }),
 *   describe: { text: 'What to echo' }, async execute({ text }) { return text; },
 * });
 */
export function defineTool<A extends Type<object>>(def: ToolDefinition<A>): Tool {
  const schema = def.args.toJsonSchema({
    fallback: {
      // JSON Schema cannot carry a predicate. The one predicate allowed ({@link stringRecord}'s)
      // says what `type: "object"` already says in JSON Schema; any other would drift, so it throws.
      predicate: (ctx) => {
        if (ctx.predicate === notArray) return ctx.base;
        throw new OryxError('ORYX_E_PLUGIN_INVALID', `tool ${def.name}: an argument has a predicate that JSON Schema cannot express`);
      },
    },
  }) as JsonSchema & { properties?: Record<string, JsonSchema> };
  // Some model APIs reject the $schema keyword; the draft is implied.
  delete schema.$schema;
  for (const [key, text] of Object.entries(def.describe)) {
    const prop = schema.properties?.[key];
    if (!prop) throw new OryxError('ORYX_E_PLUGIN_INVALID', `tool ${def.name}: describe.${key} names no argument`);
    prop.description = text as string;
  }
  return {
    name: def.name,
    description: def.description,
    source: def.source ?? 'plugin',
    inputSchema: schema,
    timeoutMs: def.timeoutMs,
    ...(def.parallel === false ? { parallel: false } : {}),
    validate(args) {
      const out = def.args(args);
      return out instanceof type.errors ? out.summary.split('\n').join('; ') : undefined;
    },
    actions: def.actions ? (args, ctx) => def.actions!(args as A['infer'], ctx) : undefined,
    execute: (args, ctx) => def.execute(args as A['infer'], ctx),
  };
}

// arktype's object types accept arrays (they are objects); JSON Schema's `object` does not.
function notArray(value: unknown, ctx: { mustBe(expected: string): false }): boolean {
  return !Array.isArray(value) || ctx.mustBe('an object of names to strings');
}

/**
 * `{name: value}` with string values, not an array: the same in validation and in JSON Schema
 * (arktype's object types accept arrays, JSON Schema's `object` does not).
 *
 * @example
 * const args = type({ url: 'string', 'headers?': stringRecord, '+': 'reject' });
 */
export const stringRecord = type('Record<string, string>').narrow(notArray);
