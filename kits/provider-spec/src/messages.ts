/**
 * The one message schema every part of OryxOS speaks: providers map it to and from their wire
 * format, the session stores persist it, the loop builds prompts from it. Tool calls and
 * results travel as structured messages matched by id, never flattened into text.
 *
 * A message's text is always `content` (a string), so everything that only reads text keeps
 * working; what is not plain text travels in `parts`: images and files a person or a tool
 * gave, the model's reasoning. Whatever a provider must get back on the next request (an
 * opaque signature, the field the reasoning came in) rides in `metadata`, keyed by the name
 * the provider is registered under; a provider reads only its own key and ignores parts it
 * does not understand.
 */
export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/**
 * Data a provider attached to a part, a tool call or a message, for itself: keyed by the
 * provider's registered name (`openai`, `anthropic`, `deepseek`…), stored with the message and
 * sent back only to that provider.
 *
 * @example
 * { anthropic: { signature: 'EqQBCkYIARgCIkD…' } }
 */
export type ProviderMetadata = Record<string, Record<string, unknown>>;

/** An image, as base64 bytes (never a URL: nothing is fetched on a model's behalf). */
export interface ImagePart {
  type: 'image';
  /** `image/png`, `image/jpeg`, `image/gif`, `image/webp`. */
  mediaType: string;
  /** The bytes, base64. */
  data: string;
  /** Where it came from, for people: a file name, `mcp filesystem/read_media_file`. */
  name?: string;
  metadata?: ProviderMetadata;
}

/** A document given to the model (a PDF, a text file), as base64 bytes. */
export interface FilePart {
  type: 'file';
  mediaType: string;
  data: string;
  name?: string;
  metadata?: ProviderMetadata;
}

/**
 * What the model thought before it answered or called tools (DeepSeek and Kimi
 * `reasoning_content`, Anthropic `thinking`, Ollama `thinking`, Magistral `thinking` parts).
 * Some servers reject a tool loop unless it comes back exactly as sent: keep `signature` and
 * `redacted` opaque.
 */
export interface ReasoningPart {
  type: 'reasoning';
  text: string;
  /** An opaque proof the server checks when the part is sent back (Anthropic's thinking signature). */
  signature?: string;
  /** Reasoning the server sent encrypted instead of as text (Anthropic `redacted_thinking`), opaque. */
  redacted?: string;
  metadata?: ProviderMetadata;
}

export type MediaPart = ImagePart | FilePart;
export type Part = MediaPart | ReasoningPart;

export interface SystemMessage { role: 'system'; content: string }

export interface UserMessage {
  role: 'user';
  content: string;
  /** Images and files the person attached. */
  parts?: MediaPart[];
}

export interface AssistantMessage {
  role: 'assistant';
  content: string;
  /** The model's reasoning, in the order it came (before the text and the calls). */
  parts?: ReasoningPart[];
  toolCalls?: ToolCall[];
  /** What the provider needs back with this message as a whole. */
  metadata?: ProviderMetadata;
}

export interface ToolMessage {
  role: 'tool';
  toolCallId: string;
  name: string;
  content: string;
  isError?: boolean;
  /** Images and files the tool returned (an MCP server's image content). */
  parts?: MediaPart[];
}

/** A call the model asked for. `argsError` is set when the provider could not parse the arguments. */
export interface ToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
  /** The raw argument text when it was not a JSON object; the kernel returns an error result. */
  argsError?: string;
  /** What the provider needs back with this call (Gemini's `thought_signature`). */
  metadata?: ProviderMetadata;
}

/**
 * The media parts of a message (images and files), or none.
 *
 * @example
 * mediaOf({ role: 'user', content: 'what is this?', parts: [{ type: 'image', mediaType: 'image/png', data }] }).length // 1
 */
export function mediaOf(message: Message): MediaPart[] {
  if (message.role === 'system' || message.role === 'assistant' || !message.parts) return [];
  return message.parts.filter((p) => p.type === 'image' || p.type === 'file');
}

/**
 * The reasoning parts of an assistant message, or none.
 *
 * @example
 * reasoningOf(response.message).map((r) => r.text).join('')
 */
export function reasoningOf(message: Message): ReasoningPart[] {
  return message.role === 'assistant' && message.parts ? message.parts.filter((p) => p.type === 'reasoning') : [];
}

/**
 * The metadata a provider stored for itself on a part, a call or a message.
 *
 * @example
 * metadataFor(call, 'gemini')?.thoughtSignature
 */
export function metadataFor(owner: { metadata?: ProviderMetadata } | undefined, provider: string): Record<string, unknown> | undefined {
  return owner?.metadata?.[provider];
}
