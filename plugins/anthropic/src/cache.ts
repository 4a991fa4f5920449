import type { MessageParam, TextBlockParam, Tool } from '@anthropic-ai/sdk/resources/messages';

/** Anthropic takes at most four `cache_control` breakpoints per request. */
export const MAX_BREAKPOINTS = 4;

const EPHEMERAL = { type: 'ephemeral' } as const;

/**
 * Marks where the prompt is stable, so Anthropic serves the prefix up to each mark from its
 * cache (a read costs a tenth of an input token; the first write a quarter more). The API
 * caches in the order tools → system → messages, and takes at most {@link MAX_BREAKPOINTS}:
 *
 * 1. the last tool (the tool list changes only with the configuration),
 * 2. the last system block (instructions, bootstrap files, skills, memory),
 * 3. the last block of the last user message: the growing end of the history, which the next
 *    request of the tool loop (or the next turn) starts with,
 * 4. the last block of the user message before it: where the previous request ended, so that
 *    one is a hit even when a step added more blocks than the API looks back over (20).
 *
 * Marks go on user messages only (tool results and the person's words): the API refuses them
 * on thinking blocks. Mutates the given arrays.
 *
 * @example
 * placeBreakpoints({ tools, system, messages }); // tools.at(-1).cache_control = { type: 'ephemeral' }, …
 */
export function placeBreakpoints(prompt: { tools: Tool[]; system: TextBlockParam[]; messages: MessageParam[] }): number {
  let placed = 0;
  const tool = prompt.tools.at(-1);
  if (tool) { tool.cache_control = EPHEMERAL; placed++; }
  const system = prompt.system.at(-1);
  if (system) { system.cache_control = EPHEMERAL; placed++; }
  for (let i = prompt.messages.length - 1, marks = 0; i >= 0 && marks < 2 && placed < MAX_BREAKPOINTS; i--) {
    const m = prompt.messages[i]!;
    if (m.role !== 'user' || !Array.isArray(m.content)) continue;
    const last = m.content.at(-1) as { cache_control?: unknown } | undefined;
    if (!last) continue;
    last.cache_control = EPHEMERAL;
    placed++;
    marks++;
  }
  return placed;
}
