import { isOryxError, errorMessage } from '@oryxos/provider-spec';
import { issueText, shape as s } from '@oryxos/schema-kit';
import type { Infer, Shape } from '@oryxos/schema-kit';
import type { JsonSchema } from '@oryxos/provider-spec';
import type { Tool, ToolContext, ToolResult } from '@oryxos/kernel';
import type { FileMemoryStore } from './file-store.ts';
import type { MemoryScope, RunMemory } from './scope.ts';

/** What the memory tools use of the store (the plugin's `memory` service, or a {@link FileMemoryStore}). */
export type MemoryToolStore = Pick<FileMemoryStore, 'coreMaxChars' | 'saveEntry' | 'recall'>;

/** The memory of the run a tool call belongs to (its scope, where saves go, what recall searches). */
export type RunMemoryOf = (ctx: ToolContext) => RunMemory;

/** How a scope is named to the model. */
const SCOPE_LABEL: Record<MemoryScope, string> = {
  agent: "the agent's memory (shared by everyone who talks to this agent)",
  user: "this user's memory",
  session: "this conversation's memory",
};

/** Longest text one `save_memory` call may store: one fact, not a document. */
export const SAVE_MAX_CHARS = 2000;
/** Most entries one `recall_memory` call returns. */
export const RECALL_MAX_LIMIT = 50;

/** Arguments of `save_memory`; the JSON Schema the model sees is generated from it. */
export const saveMemoryArgs = s.object({
  text: s.string({ min: 1, max: SAVE_MAX_CHARS }),
  zone: s.literal('archive', 'core').optional(),
});

/** Arguments of `recall_memory`; the JSON Schema the model sees is generated from it. */
export const recallMemoryArgs = s.object({
  query: s.string({ min: 1, max: 500 }),
  limit: s.integer({ min: 1, max: RECALL_MAX_LIMIT }).optional(),
});

/** The JSON Schema of an argument shape, with a description per property. */
export function toolSchema(t: Shape<object>, descriptions: Record<string, string>): JsonSchema {
  const schema = t.json() as JsonSchema & { properties: Record<string, Record<string, unknown>> };
  for (const [key, description] of Object.entries(descriptions)) {
    const property = schema.properties[key];
    if (!property) throw new Error(`toolSchema: no property "${key}" in the schema`);
    schema.properties[key] = { ...property, description };
  }
  return schema;
}

const validator = (t: Shape<object>) => (args: Record<string, unknown>) => {
  const found = s.check(t, args);
  return found && issueText(found);
};

function failure(error: unknown): ToolResult {
  if (isOryxError(error)) {
    return { content: `${error.message.replace(/\.$/, '')}.${error.hint ? ` ${error.hint}` : ''}`, isError: true, retryable: error.retryable };
  }
  return { content: `Memory failed: ${errorMessage(error)}`, isError: true };
}

/**
 * `save_memory {text, zone?}`: appends a dated entry to the MEMORY.md of the run's scope (the
 * agent's, the user's or the session's). It touches only that file, which is the runtime's
 * own state, so it asks the sandbox for nothing; the agent's `tools:` allow-list grants it.
 */
export function saveMemoryTool(store: MemoryToolStore, memoryOf: RunMemoryOf): Tool {
  return {
    name: 'save_memory',
    source: 'plugin',
    description: 'Save one lasting fact to long-term memory (MEMORY.md), dated today; it goes to the memory of the person '
      + 'you are talking with, of this conversation or of the agent, as the agent is set up. Use zone "core" only for facts '
      + `that must be in every prompt (who the user is, standing preferences; Core is capped at ${store.coreMaxChars} characters); `
      + 'everything else goes to the "archive" (default), where the newest entries are shown and older ones are found with recall_memory.',
    inputSchema: toolSchema(saveMemoryArgs, {
      text: 'The fact, short and self-contained (it will be read without this conversation).',
      zone: 'core: always in the prompt, small; archive (default): searchable history.',
    }),
    validate: validator(saveMemoryArgs),
    async execute(args, ctx) {
      const { text, zone = 'archive' } = args as Infer<typeof saveMemoryArgs>;
      try {
        const { target } = memoryOf(ctx);
        const { entry, duplicate } = await store.saveEntry(ctx.run.agent.name, text, zone, target);
        const where = `${zone === 'core' ? 'Core' : 'the Archive'} of ${SCOPE_LABEL[target.scope]}`;
        return duplicate
          ? `Already in ${where} (saved ${entry.date || 'undated'}); nothing changed.`
          : `Saved to ${where}: ${entry.date}: ${entry.text}`;
      } catch (error) {
        return failure(error);
      }
    },
  };
}

/**
 * `recall_memory {query, limit?}`: ranked keyword search of the Archive of the run's memory
 * (the agent's, plus the user's or the session's) and its rotated archive files, newest first
 * among equals.
 */
export function recallMemoryTool(store: MemoryToolStore, memoryOf: RunMemoryOf): Tool {
  return {
    name: 'recall_memory',
    source: 'plugin',
    idempotent: true, // it only reads the archive: a call cut off by a crash may simply run again
    description: 'Search the archive of long-term memory (MEMORY.md and its older archive files) for entries about a topic: '
      + 'keyword ranking (BM25), works for any language including Chinese. Returns the best matching entries with their dates '
      + 'and whose memory they come from ([agent], [user] or [session]).',
    inputSchema: toolSchema(recallMemoryArgs, {
      query: 'Keywords to look for, e.g. "deploy staging server" or "用户 喜欢".',
      limit: 'Most entries to return (default 5).',
    }),
    validate: validator(recallMemoryArgs),
    async execute(args, ctx) {
      const { query, limit = 5 } = args as Infer<typeof recallMemoryArgs>;
      try {
        const hits = await store.recall(ctx.run.agent.name, query, limit, memoryOf(ctx).sources);
        if (!hits.length) return `No archive entry matches "${query}".`;
        const lines = hits.map((h, i) => `${i + 1}. ${h.date || 'undated'} [${h.scope}] (score ${h.score}): ${h.text.replace(/\n/g, '\n   ')}`);
        return `${hits.length} archive ${hits.length === 1 ? 'entry matches' : 'entries match'} "${query}":\n${lines.join('\n')}`;
      } catch (error) {
        return failure(error);
      }
    },
  };
}
