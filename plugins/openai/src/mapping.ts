import type { ChatRequest, ChatResponse, MediaPart, Message, ToolSpec } from '@oryxos/provider-spec';
import { fromChatCompletion, parseToolArguments } from '@oryxos/provider-kit';
import { mediaOf } from '@oryxos/provider-spec';
import type { ChatCompletionContentPart, ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { callExtraContent, echoFields, type ReasoningEcho } from './echo.ts';

export { parseToolArguments };

/** How messages are written for one server: the provider's name (whose metadata is read), what goes back, whether images go. */
export interface WireOptions {
  provider: string;
  reasoningEcho: ReasoningEcho;
  images: boolean;
  /** `max_completion_tokens` (OpenAI's own API, required by its reasoning models) or `max_tokens` (most compatible servers). */
  maxTokensField: 'max_tokens' | 'max_completion_tokens';
}

const DEFAULT_WIRE: WireOptions = { provider: 'openai', reasoningEcho: 'auto', images: false, maxTokensField: 'max_tokens' };

/**
 * Kernel messages to chat-completions messages: tool calls and results stay structured;
 * what the server needs back (reasoning on tool-loop turns, Gemini's `extra_content`,
 * OpenRouter's `reasoning_details`) is added from the provider's own metadata, see
 * {@link echoFields}; images go as `image_url` data URLs when the model takes them.
 *
 * @example
 * toChatMessages(request.messages, { provider: 'deepseek', reasoningEcho: 'auto', images: false, maxTokensField: 'max_tokens' })
 */
export function toChatMessages(messages: Message[], wire: WireOptions = DEFAULT_WIRE): ChatCompletionMessageParam[] {
  const extras = echoFields(messages, wire.provider, wire.reasoningEcho);
  const out: ChatCompletionMessageParam[] = [];
  // Chat completions take images only in user messages: those a tool returned follow its results as one user message.
  let toolImages: { from: string; media: MediaPart[] }[] = [];
  const flushToolImages = () => {
    if (!toolImages.length) return;
    const names = toolImages.map((t) => t.from).join(', ');
    out.push({ role: 'user', content: [{ type: 'text', text: `The images the tool results above returned (${names}):` }, ...toolImages.flatMap((t) => t.media.map(imagePart))] });
    toolImages = [];
  };
  messages.forEach((m, i) => {
    if (m.role !== 'tool') flushToolImages();
    switch (m.role) {
      case 'system': out.push({ role: 'system', content: m.content }); break;
      case 'user': {
        const media = wire.images ? mediaOf(m).filter((p) => p.type === 'image') : [];
        out.push(media.length ? { role: 'user', content: [...(m.content ? [{ type: 'text' as const, text: m.content }] : []), ...media.map(imagePart)] } : { role: 'user', content: m.content });
        break;
      }
      case 'tool': {
        out.push({ role: 'tool', tool_call_id: m.toolCallId, content: m.content });
        const media = wire.images ? mediaOf(m).filter((p) => p.type === 'image') : [];
        if (media.length) toolImages.push({ from: `${m.name} ${m.toolCallId}`, media });
        break;
      }
      case 'assistant': {
        const calls = m.toolCalls ?? [];
        const more = extras.get(i) ?? {};
        if (!calls.length) { out.push({ role: 'assistant', content: m.content, ...more } as ChatCompletionMessageParam); break; }
        out.push({
          role: 'assistant',
          // Several servers reject an empty string next to tool calls; null is the spec's "no text".
          content: m.content ? m.content : null,
          ...more,
          tool_calls: calls.map((c) => {
            const extra = callExtraContent(c, wire.provider);
            return { id: c.id, type: 'function' as const, function: { name: c.name, arguments: JSON.stringify(c.args ?? {}) }, ...(extra ? { extra_content: extra } : {}) };
          }),
        } as ChatCompletionMessageParam);
      }
    }
  });
  flushToolImages();
  return out;
}

const imagePart = (p: MediaPart): ChatCompletionContentPart => ({ type: 'image_url', image_url: { url: `data:${p.mediaType};base64,${p.data}` } });

/** Tool specs as chat-completions `tools` (function JSON Schema). */
export function toTools(tools: ToolSpec[]): ChatCompletionTool[] {
  return tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.inputSchema } }));
}

/** The request body for `chat.completions.create` (without `stream`). */
export function toRequestBody(request: ChatRequest, wire: WireOptions = DEFAULT_WIRE): ChatCompletionCreateParamsNonStreaming {
  return {
    model: request.model,
    messages: toChatMessages(request.messages, wire),
    // An empty `tools` array is an error on several compatible servers.
    ...(request.tools.length ? { tools: toTools(request.tools) } : {}),
    ...(request.maxOutputTokens !== undefined ? { [wire.maxTokensField]: request.maxOutputTokens } : {}),
  };
}

/**
 * A chat completion back to the kernel's response (see `fromChatCompletion` in
 * `@oryxos/provider-kit`); undefined when it has no choice at all.
 *
 * @example
 * fromCompletion(request, completion, 'openai')?.message.content
 */
export function fromCompletion(request: ChatRequest, completion: unknown, provider = 'openai'): ChatResponse | undefined {
  return fromChatCompletion(request, completion, provider);
}
