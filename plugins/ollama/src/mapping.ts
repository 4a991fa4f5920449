import type { AssistantMessage, ChatRequest, ChatResponse, FinishReason, Message, ReasoningPart, ToolCall, ToolSpec } from '@oryxos/provider-spec';
import { normalizeFinishReason, parseToolArguments, stableCallId } from '@oryxos/provider-kit';
import { mediaOf, metadataFor, reasoningOf } from '@oryxos/provider-spec';
import type { ChatRequest as WireRequest, ChatResponse as WireResponse, Message as WireMessage, Tool as WireTool, ToolCall as WireToolCall } from 'ollama';

/**
 * Arguments as Ollama sent them: normally an object already; a string is parsed as JSON (see
 * `parseToolArguments` in `@oryxos/provider-kit`). Anything else gives `args: {}` and
 * `argsError`, which the kernel turns into an error result the model can correct.
 *
 * @example
 * toolArguments({ path: 'a.txt' }) // { args: { path: 'a.txt' } }
 */
export function toolArguments(raw: unknown): { args: Record<string, unknown>; argsError?: string } {
  return parseToolArguments(raw);
}

/** What this provider keeps on a reasoning part: it came in the message's `thinking` field. */
export interface OllamaReasoningMeta { field: 'thinking' }

/**
 * Kernel messages to Ollama messages. Tool results carry `tool_name` and follow their
 * assistant message in call order, which is how Ollama pairs them (it has no ids). The
 * assistant's reasoning goes back as `thinking` when it came from Ollama's `thinking` field
 * (Ollama's tool-calling guide passes it back with the calls); images go as `images` (base64)
 * when `images` is true.
 *
 * @example
 * toOllamaMessages(request.messages, { provider: 'ollama', images: false })
 */
export function toOllamaMessages(messages: Message[], wire: { provider: string; images: boolean } = { provider: 'ollama', images: false }): WireMessage[] {
  const imagesOf = (m: Message) => {
    const data = wire.images ? mediaOf(m).filter((p) => p.type === 'image').map((p) => p.data) : [];
    return data.length ? { images: data } : {};
  };
  return messages.map((m): WireMessage => {
    switch (m.role) {
      case 'system': return { role: 'system', content: m.content };
      case 'user': return { role: 'user', content: m.content, ...imagesOf(m) };
      case 'tool': return { role: 'tool', content: m.content, tool_name: m.name, ...imagesOf(m) };
      case 'assistant': {
        const thinking = thinkingOf(m, wire.provider);
        return {
          role: 'assistant', content: m.content,
          ...(thinking ? { thinking } : {}),
          ...(m.toolCalls?.length ? { tool_calls: m.toolCalls.map((c) => ({ function: { name: c.name, arguments: c.args ?? {} } })) } : {}),
        };
      }
    }
  });
}

function thinkingOf(m: AssistantMessage, provider: string): string {
  return reasoningOf(m).filter((p) => (metadataFor(p, provider) as OllamaReasoningMeta | undefined)?.field === 'thinking').map((p) => p.text).join('');
}

export function toOllamaTools(tools: ToolSpec[]): WireTool[] {
  return tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.inputSchema as WireTool['function']['parameters'] } }));
}

/** The /api/chat body (without `stream`); a run's output cap is `options.num_predict`. */
export function toRequestBody(request: ChatRequest, extra: { keepAlive?: string | number; modelOptions?: Record<string, unknown>; provider?: string; images?: boolean }): WireRequest {
  const options = { ...extra.modelOptions, ...(request.maxOutputTokens !== undefined ? { num_predict: request.maxOutputTokens } : {}) };
  return {
    model: request.model,
    messages: toOllamaMessages(request.messages, { provider: extra.provider ?? 'ollama', images: extra.images ?? false }),
    ...(request.tools.length ? { tools: toOllamaTools(request.tools) } : {}),
    ...(extra.keepAlive !== undefined ? { keep_alive: extra.keepAlive } : {}),
    ...(Object.keys(options).length ? { options } : {}),
  };
}

/** Ollama tool calls to kernel ones, with stable generated ids (or the server's, if it sends one). */
export function toToolCalls(request: ChatRequest, calls: WireToolCall[], offset = 0): ToolCall[] {
  return calls.filter((c) => c?.function?.name).map((c, i) => {
    const { args, argsError } = toolArguments(c.function.arguments);
    const sent = (c as { id?: unknown }).id;
    return {
      id: typeof sent === 'string' && sent ? sent : stableCallId(request.messages, offset + i, c.function.name, c.function.arguments ?? null),
      name: c.function.name,
      args,
      ...(argsError !== undefined ? { argsError } : {}),
    };
  });
}

export function mapFinishReason(reason: string | undefined, hasToolCalls: boolean): FinishReason {
  return normalizeFinishReason(reason, hasToolCalls).finishReason;
}

/**
 * The usage and finish fields of a final Ollama message. Ollama reports no cached tokens (its
 * KV reuse is invisible in the counts), so the cache figures stay undefined.
 */
export function finishOf(final: Partial<WireResponse>, hasToolCalls: boolean): Pick<ChatResponse, 'usage' | 'finishReason' | 'rawFinishReason'> {
  const { finishReason, rawFinishReason } = normalizeFinishReason(final.done_reason, hasToolCalls);
  return {
    usage: { inputTokens: final.prompt_eval_count ?? 0, outputTokens: final.eval_count ?? 0 },
    finishReason,
    ...(rawFinishReason ? { rawFinishReason } : {}),
  };
}

/** The assistant message of an answer: text, `thinking` as a reasoning part, tool calls. */
export function toAssistant(provider: string, content: string, thinking: string, toolCalls: ToolCall[]): AssistantMessage {
  const parts: ReasoningPart[] = thinking ? [{ type: 'reasoning', text: thinking, metadata: { [provider]: { field: 'thinking' } satisfies OllamaReasoningMeta } }] : [];
  return { role: 'assistant', content, ...(parts.length ? { parts } : {}), ...(toolCalls.length ? { toolCalls } : {}) };
}

/** A whole (non-streamed) Ollama chat response to the kernel's; undefined when it has no message. */
export function fromResponse(request: ChatRequest, response: WireResponse, provider = 'ollama'): ChatResponse | undefined {
  if (!response || typeof response !== 'object' || !response.message || typeof response.message !== 'object') return undefined;
  const toolCalls = toToolCalls(request, response.message.tool_calls ?? []);
  const content = typeof response.message.content === 'string' ? response.message.content : '';
  const thinking = typeof response.message.thinking === 'string' ? response.message.thinking : '';
  return {
    message: toAssistant(provider, content, thinking, toolCalls),
    ...finishOf(response, toolCalls.length > 0),
    model: response.model || request.model,
  };
}
