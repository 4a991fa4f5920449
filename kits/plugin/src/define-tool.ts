import { OryxError, type JsonSchema } from '@oryxos/provider-spec';
import { isShape, issueText, shape as s, type Infer, type Shape } from '@oryxos/schema-kit';
import type { SandboxAction } from '@oryxos/contracts';
import type { Tool, ToolContext, ToolResult, ToolSource } from '@oryxos/kernel';

/** A tool's arguments: a shape (`shape.object({...})`), the one validation dialect of options, frontmatter and tool arguments. */
export type ToolArgs = Shape<object>;
/** The arguments' type of {@link ToolArgs}. */
export type ArgsOf<A extends ToolArgs> = Infer<A>;

/** A tool typed by its argument shape. */
export interface ToolDefinition<A extends ToolArgs> {
  name: string;
  description: string;
  /** Where it comes from, as `oryx tools` shows it. Default `plugin`; the built-in tools say `builtin`. */
  source?: ToolSource;
  /** The arguments. The model's JSON Schema and the validation both come from it. */
  args: A;
  /** What each argument means, for the model; every key must be a property of `args`. */
  describe: Partial<Record<keyof ArgsOf<A> & string, string>>;
  timeoutMs?: number;
  /** `false` for a tool that must run alone (it writes or runs something): never at the same time as another call. */
  parallel?: boolean;
  /**
   * `true` for a tool that only reads (or may run twice without harm): it takes no start mark, and
   * a call of it cut off by a crash can run again instead of being reported as interrupted.
   */
  idempotent?: boolean;
  actions?(args: ArgsOf<A>, ctx: ToolContext): SandboxAction[] | Promise<SandboxAction[]>;
  execute(args: ArgsOf<A>, ctx: ToolContext): Promise<ToolResult | string>;
}

/**
 * Turns a definition into a kernel `Tool`: the JSON Schema is generated from the argument
 * shape and `validate` runs the same shape, so what the model is told and what is checked never
 * drift; a shape costs nothing to load. Arguments that are not a shape (a zod or arktype
 * schema), or a `describe` key that names no argument, are `ORYX_E_PLUGIN_INVALID` naming the
 * tool: a tool validated another way is a plain kernel `Tool` with its own `inputSchema` and
 * `validate`.
 *
 * @example
 * import { shape as s } from '@oryxos/schema-kit';
 * import { defineTool } from '@oryxos/plugin-kit';
 * const echo = defineTool({
 *   name: 'echo', description: 'Echo text', args: s.object({ text: s.string() }),
 *   describe: { text: 'What to echo' }, async execute({ text }) { return text; },
 * });
 */
export function defineTool<A extends ToolArgs>(def: ToolDefinition<A>): Tool {
  const args: unknown = def.args;
  if (!isShape(args)) {
    throw new OryxError('ORYX_E_PLUGIN_INVALID', `tool ${def.name}: args is not a shape`, {
      hint: "Describe the arguments with the shapes of @oryxos/plugin-kit: args: s.object({ path: s.string() }) (import { shape as s } from '@oryxos/plugin-kit'). A tool validated with another library is a plain Tool with its own inputSchema and validate.",
    });
  }
  const schema = args.json() as JsonSchema & { properties?: Record<string, JsonSchema> };
  for (const [key, text] of Object.entries(def.describe)) {
    const prop = schema.properties?.[key];
    if (!prop) throw new OryxError('ORYX_E_PLUGIN_INVALID', `tool ${def.name}: describe.${key} names no argument`);
    schema.properties![key] = { ...prop, description: text as string };
  }
  return {
    name: def.name,
    description: def.description,
    source: def.source ?? 'plugin',
    inputSchema: schema,
    timeoutMs: def.timeoutMs,
    ...(def.parallel === false ? { parallel: false } : {}),
    ...(def.idempotent ? { idempotent: true } : {}),
    validate: (value) => { const found = s.check(args, value); return found && issueText(found); },
    actions: def.actions ? (a, ctx) => def.actions!(a as ArgsOf<A>, ctx) : undefined,
    execute: (a, ctx) => def.execute(a as ArgsOf<A>, ctx),
  };
}

/**
 * `{name: value}` with string values, not an array: the same in validation and in JSON Schema.
 *
 * @example
 * const args = s.object({ url: s.string(), headers: stringRecord.optional() });
 */
export const stringRecord: Shape<Record<string, string>> = s.record(s.string());
