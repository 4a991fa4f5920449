import type { ChatRequest, ChatResponse, FinishReason, Message, ToolCall, ToolSpec } from '@oryxos/provider-spec';
import { normalizeFinishReason, stableCallId } from '@oryxos/provider-kit';
import type {
  ChatCompletion, ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam, ChatCompletionTool,
} from 'openai/resources/chat/completions';

const RAW_LIMIT = 500;

/**
 * Parses the JSON argument text a model sent. Invalid JSON (or JSON that is not an object)
 * gives `args: {}` and `argsError`, which the kernel turns into an error result the model can
 * correct; an empty string means "no arguments".
 *
 * @example
 * parseToolArguments('{"path":"a.txt"}') // { args: { path: 'a.txt' } }
 * parseToolArguments('{"path":') // { args: {}, argsError: 'Unexpected end of JSON input; raw: {"path":' }
 */
export function parseToolArguments(raw: string | undefined | null): { args: Record<string, unknown>; argsError?: string } {
  const text = (raw ?? '').trim();
  if (!text) return { args: {} };
  const shown = text.length > RAW_LIMIT ? `${text.slice(0, RAW_LIMIT)}… (${text.length} chars)` : text;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { args: {}, argsError: `${(error as Error).message}; raw: ${shown}` };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    return { args: {}, argsError: `expected a JSON object, got ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}; raw: ${shown}` };
  }
  return { args: value as Record<string, unknown> };
}

/** Kernel messages to chat-completions messages: tool calls and results stay structured. */
export function toChatMessages(messages: Message[]): ChatCompletionMessageParam[] {
  return messages.map((m): ChatCompletionMessageParam => {
    switch (m.role) {
      case 'system': return { role: 'system', content: m.content };
      case 'user': return { role: 'user', content: m.content };
      case 'tool': return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
      case 'assistant': {
        const calls = m.toolCalls ?? [];
        if (!calls.length) return { role: 'assistant', content: m.content };
        return {
          role: 'assistant',
          // Several servers reject an empty string next to tool calls; null is the spec's "no text".
          content: m.content ? m.content : null,
          tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args ?? {}) } })),
        };
      }
    }
  });
}

/** Tool specs as chat-completions `tools` (function JSON Schema). */
export function toTools(tools: ToolSpec[]): ChatCompletionTool[] {
  return tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.inputSchema } }));
}

/** The request body for `chat.completions.create` (without `stream`). */
export function toRequestBody(request: ChatRequest): ChatCompletionCreateParamsNonStreaming {
  return {
    model: request.model,
    messages: toChatMessages(request.messages),
    // An empty `tools` array is an error on several compatible servers.
    ...(request.tools.length ? { tools: toTools(request.tools) } : {}),
  };
}

/** Normalises a finish reason; a response that carries tool calls finishes with `tool_calls`. */
export function mapFinishReason(reason: string | null | undefined, hasToolCalls: boolean): FinishReason {
  return normalizeFinishReason(reason, hasToolCalls).finishReason;
}

/** Builds a ToolCall from the wire parts, filling a stable id when the server sent none. */
export function toToolCall(request: ChatRequest, index: number, id: string | undefined, name: string, rawArgs: string | undefined): ToolCall {
  const { args, argsError } = parseToolArguments(rawArgs);
  return {
    id: id || stableCallId(request.messages, index, name, rawArgs ?? ''),
    name,
    args,
    ...(argsError !== undefined ? { argsError } : {}),
  };
}

/** A chat completion back to the kernel's response; undefined when it has no choice at all. */
export function fromCompletion(request: ChatRequest, completion: ChatCompletion): ChatResponse | undefined {
  const choice = completion?.choices?.[0];
  if (!choice?.message) return undefined;
  const toolCalls = (choice.message.tool_calls ?? [])
    .filter((c) => c.type === 'function' || (c as { function?: unknown }).function)
    .map((c, i) => {
      const fn = (c as { function: { name: string; arguments?: string } }).function;
      return toToolCall(request, i, c.id, fn.name, fn.arguments);
    });
  return {
    message: { role: 'assistant', content: choice.message.content ?? '', ...(toolCalls.length ? { toolCalls } : {}) },
    usage: { inputTokens: completion.usage?.prompt_tokens ?? 0, outputTokens: completion.usage?.completion_tokens ?? 0 },
    finishReason: mapFinishReason(choice.finish_reason, toolCalls.length > 0),
    model: completion.model || request.model,
  };
}
