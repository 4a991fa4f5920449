import type { ChatRequest, ChatResponse, FinishReason, Message, ToolCall, ToolSpec } from '@oryxos/provider-spec';
import { normalizeFinishReason, stableCallId } from '@oryxos/provider-kit';
import type { ChatRequest as WireRequest, ChatResponse as WireResponse, Message as WireMessage, Tool as WireTool, ToolCall as WireToolCall } from 'ollama';

const RAW_LIMIT = 500;

/**
 * Arguments as Ollama sent them: normally an object already; a string is parsed as JSON.
 * Anything else gives `args: {}` and `argsError`, which the kernel turns into an error result
 * the model can correct.
 */
export function toolArguments(raw: unknown): { args: Record<string, unknown>; argsError?: string } {
  if (raw === undefined || raw === null || raw === '') return { args: {} };
  if (typeof raw === 'object' && !Array.isArray(raw)) return { args: raw as Record<string, unknown> };
  const text = typeof raw === 'string' ? raw.trim() : JSON.stringify(raw);
  const shown = text.length > RAW_LIMIT ? `${text.slice(0, RAW_LIMIT)}… (${text.length} chars)` : text;
  if (typeof raw !== 'string') return { args: {}, argsError: `expected a JSON object, got ${Array.isArray(raw) ? 'an array' : typeof raw}; raw: ${shown}` };
  try {
    const value = JSON.parse(text);
    if (value && typeof value === 'object' && !Array.isArray(value)) return { args: value };
    return { args: {}, argsError: `expected a JSON object, got ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}; raw: ${shown}` };
  } catch (error) {
    return { args: {}, argsError: `${(error as Error).message}; raw: ${shown}` };
  }
}

/**
 * Kernel messages to Ollama messages. Tool results carry `tool_name` and follow their
 * assistant message in call order, which is how Ollama pairs them (it has no ids).
 */
export function toOllamaMessages(messages: Message[]): WireMessage[] {
  return messages.map((m): WireMessage => {
    switch (m.role) {
      case 'system':
      case 'user': return { role: m.role, content: m.content };
      case 'tool': return { role: 'tool', content: m.content, tool_name: m.name };
      case 'assistant': return {
        role: 'assistant', content: m.content,
        ...(m.toolCalls?.length ? { tool_calls: m.toolCalls.map((c) => ({ function: { name: c.name, arguments: c.args ?? {} } })) } : {}),
      };
    }
  });
}

export function toOllamaTools(tools: ToolSpec[]): WireTool[] {
  return tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.inputSchema as WireTool['function']['parameters'] } }));
}

/** The /api/chat body (without `stream`). */
export function toRequestBody(request: ChatRequest, extra: { keepAlive?: string | number; modelOptions?: Record<string, unknown> }): WireRequest {
  return {
    model: request.model,
    messages: toOllamaMessages(request.messages),
    ...(request.tools.length ? { tools: toOllamaTools(request.tools) } : {}),
    ...(extra.keepAlive !== undefined ? { keep_alive: extra.keepAlive } : {}),
    ...(extra.modelOptions ? { options: extra.modelOptions } : {}),
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

/** The usage and finish fields of a final Ollama message. */
export function finishOf(final: Partial<WireResponse>, hasToolCalls: boolean): Pick<ChatResponse, 'usage' | 'finishReason'> {
  return {
    usage: { inputTokens: final.prompt_eval_count ?? 0, outputTokens: final.eval_count ?? 0 },
    finishReason: mapFinishReason(final.done_reason, hasToolCalls),
  };
}

/** A whole (non-streamed) Ollama chat response to the kernel's; undefined when it has no message. */
export function fromResponse(request: ChatRequest, response: WireResponse): ChatResponse | undefined {
  if (!response || typeof response !== 'object' || !response.message || typeof response.message !== 'object') return undefined;
  const toolCalls = toToolCalls(request, response.message.tool_calls ?? []);
  return {
    message: { role: 'assistant', content: response.message.content ?? '', ...(toolCalls.length ? { toolCalls } : {}) },
    ...finishOf(response, toolCalls.length > 0),
    model: response.model || request.model,
  };
}
