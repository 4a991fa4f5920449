import type { ChatRequest, MediaPart, Message, ToolSpec } from '@oryxos/provider-spec';
import { mediaOf, metadataFor, reasoningOf } from '@oryxos/provider-spec';
import type {
  ContentBlockParam, ImageBlockParam, MessageCreateParamsNonStreaming, MessageParam, TextBlockParam, Tool, ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import { placeBreakpoints } from './cache.ts';
import type { AnthropicSettings } from './options.ts';

/** What this provider keeps on a reasoning part: the block it came as (`thinking` with its signature, or `redacted_thinking`). */
export interface AnthropicReasoningMeta { block: 'thinking' | 'redacted_thinking' }

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/**
 * Kernel messages to Messages API input. System messages become the `system` blocks; tool
 * results become `tool_result` blocks in one user message (images a tool returned go inside
 * its result); the assistant's reasoning goes back first, as the `thinking` blocks (with their
 * signatures) and `redacted_thinking` blocks it came as — the API refuses a tool loop with
 * thinking on without them — then its text, then its `tool_use` blocks. Reasoning another
 * provider produced has no signature the API would accept and is left out.
 *
 * @example
 * const { system, messages } = toAnthropicMessages(request.messages, 'anthropic');
 */
export function toAnthropicMessages(input: Message[], provider: string): { system: TextBlockParam[]; messages: MessageParam[] } {
  const system: TextBlockParam[] = [];
  const messages: MessageParam[] = [];
  const push = (role: 'user' | 'assistant', blocks: ContentBlockParam[]) => {
    if (!blocks.length) return;
    const last = messages.at(-1);
    // The API takes alternating turns: tool results and the user's next words share one user turn.
    if (last?.role === role && Array.isArray(last.content)) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  for (const m of input) {
    switch (m.role) {
      case 'system': if (m.content) system.push({ type: 'text', text: m.content }); break;
      case 'user': push('user', [...(m.content ? [{ type: 'text' as const, text: m.content }] : []), ...images(m)]); break;
      case 'tool': {
        const result: ToolResultBlockParam = {
          type: 'tool_result', tool_use_id: m.toolCallId,
          content: [...(m.content ? [{ type: 'text' as const, text: m.content }] : []), ...images(m)],
          ...(m.isError ? { is_error: true } : {}),
        };
        push('user', [result]);
        break;
      }
      case 'assistant': {
        const blocks: ContentBlockParam[] = [];
        for (const part of reasoningOf(m)) {
          const meta = metadataFor(part, provider) as AnthropicReasoningMeta | undefined;
          if (meta?.block === 'redacted_thinking' && part.redacted) blocks.push({ type: 'redacted_thinking', data: part.redacted });
          else if (meta?.block === 'thinking' && part.signature) blocks.push({ type: 'thinking', thinking: part.text, signature: part.signature });
        }
        if (m.content) blocks.push({ type: 'text', text: m.content });
        for (const call of m.toolCalls ?? []) blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: call.args ?? {} });
        push('assistant', blocks);
      }
    }
  }
  return { system, messages };
}

function images(m: Message): ImageBlockParam[] {
  return mediaOf(m).filter((p): p is MediaPart => p.type === 'image' && IMAGE_TYPES.has(p.mediaType))
    .map((p) => ({ type: 'image', source: { type: 'base64', media_type: p.mediaType as 'image/png', data: p.data } }));
}

/** Tool specs as Messages API tools. */
export function toAnthropicTools(tools: ToolSpec[]): Tool[] {
  return tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema as Tool['input_schema'] }));
}

/** The request body (without `stream`): cache breakpoints placed (see {@link placeBreakpoints}), thinking as configured. */
export function toRequestBody(request: ChatRequest, settings: AnthropicSettings): MessageCreateParamsNonStreaming {
  const { system, messages } = toAnthropicMessages(request.messages, settings.name);
  const tools = toAnthropicTools(request.tools);
  if (settings.cache) placeBreakpoints({ tools, system, messages });
  const thinking = settings.thinking === 'adaptive' ? { type: 'adaptive' as const }
    : settings.thinking ? { type: 'enabled' as const, budget_tokens: settings.thinking.budgetTokens } : undefined;
  const budget = typeof settings.thinking === 'object' ? settings.thinking.budgetTokens : 0;
  return {
    model: request.model,
    // The thinking budget is part of max_tokens, so a run's cap cannot go below it.
    max_tokens: Math.max(request.maxOutputTokens ?? settings.maxTokens, budget + 1),
    messages,
    ...(system.length ? { system } : {}),
    ...(tools.length ? { tools } : {}),
    ...(thinking ? { thinking } : {}),
  } as MessageCreateParamsNonStreaming;
}
