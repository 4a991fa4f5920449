import type { AssistantMessage, ChatRequest, ChatResponse, ProviderMetadata, ReasoningPart, ToolCall, Usage } from '@oryxos/provider-spec';
import { stableCallId } from './call-id.ts';
import { normalizeFinishReason } from './finish.ts';
import { parseToolArguments } from './tool-arguments.ts';

/**
 * The fields chat-completions servers put the model's reasoning in, in the order they are
 * read: `reasoning_content` (DeepSeek, Kimi, vLLM before 0.10, SGLang, Qwen on DashScope),
 * `reasoning` (OpenRouter, Ollama's `/v1`, vLLM since 0.10, Groq), `reasoning_text`, and
 * `thinking`. A server that sends two of them with the same text is read once.
 */
export const REASONING_FIELDS = ['reasoning_content', 'reasoning', 'reasoning_text', 'thinking'] as const;

/** Where a piece of reasoning came: one of {@link REASONING_FIELDS}, or a `thinking` part of `content` (Mistral's Magistral). */
export type ReasoningField = (typeof REASONING_FIELDS)[number] | 'content';

/** What a chat-completions provider stores for itself on a reasoning part (`metadata[provider]`). */
export interface ChatReasoningMeta { field: ReasoningField }
/** What it stores on a tool call: Gemini's `extra_content` (the `thought_signature`), as sent. */
export interface ChatCallMeta { extraContent?: Record<string, unknown> }
/** What it stores on the assistant message: `extra_content` of the text, OpenRouter's `reasoning_details`, as sent. */
export interface ChatMessageMeta { extraContent?: Record<string, unknown>; reasoningDetails?: Record<string, unknown>[] }

/** A tool call being put together from one whole message or from stream fragments. */
export interface PartialCall { id?: string; name: string; text: string; object?: Record<string, unknown>; extraContent?: Record<string, unknown> }

/** A piece of the answer to show as it arrives. */
export type AnswerDelta = { type: 'text'; delta: string } | { type: 'reasoning'; delta: string };

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * What one choice of a chat-completions answer holds — text, reasoning by field, tool calls,
 * `extra_content`, `reasoning_details` — read from a whole message or delta by delta, then
 * turned into the kernel's response with what the server needs back in `metadata`.
 */
export class ChatAnswer {
  text = '';
  readonly reasoning: { field: ReasoningField; text: string }[] = [];
  readonly calls: PartialCall[] = [];
  extraContent?: Record<string, unknown>;
  readonly reasoningDetails: Record<string, unknown>[] = [];

  /** Reads `content` (a string, or an array of typed parts) and the reasoning fields of a message or delta. */
  read(message: Record<string, unknown>): AnswerDelta[] {
    const out: AnswerDelta[] = [];
    const field = REASONING_FIELDS.find((f) => typeof message[f] === 'string' && message[f]);
    if (field) out.push(this.addReasoning(field, message[field] as string));
    out.push(...this.readContent(message.content));
    if (isObject(message.extra_content)) this.extraContent = { ...this.extraContent, ...message.extra_content };
    if (Array.isArray(message.reasoning_details)) this.mergeReasoningDetails(message.reasoning_details);
    return out;
  }

  private readContent(content: unknown): AnswerDelta[] {
    if (typeof content === 'string') return content ? [this.addText(content)] : [];
    if (!Array.isArray(content)) return [];
    const out: AnswerDelta[] = [];
    for (const part of content) {
      if (typeof part === 'string') { if (part) out.push(this.addText(part)); continue; }
      if (!isObject(part)) continue;
      if (part.type === 'text' && typeof part.text === 'string' && part.text) out.push(this.addText(part.text));
      if (part.type === 'thinking' || part.type === 'reasoning') {
        const text = textOf(part.thinking ?? part.reasoning ?? part.text);
        if (text) out.push(this.addReasoning('content', text));
      }
    }
    return out;
  }

  private addText(delta: string): AnswerDelta { this.text += delta; return { type: 'text', delta }; }

  private addReasoning(field: ReasoningField, delta: string): AnswerDelta {
    const last = this.reasoning.at(-1);
    if (last?.field === field) last.text += delta;
    else this.reasoning.push({ field, text: delta });
    return { type: 'reasoning', delta };
  }

  /** OpenRouter streams `reasoning_details` as fragments keyed by `index`: text is joined, the rest (signature, id) is the latest. */
  private mergeReasoningDetails(items: unknown[]): void {
    for (const item of items) {
      if (!isObject(item)) continue;
      const at = typeof item.index === 'number' ? this.reasoningDetails.findIndex((d) => d.index === item.index) : -1;
      if (at < 0) { this.reasoningDetails.push({ ...item }); continue; }
      const merged = this.reasoningDetails[at]!;
      for (const [key, value] of Object.entries(item)) {
        merged[key] = (key === 'text' || key === 'summary' || key === 'data') && typeof value === 'string' && typeof merged[key] === 'string' ? merged[key] + value : value;
      }
    }
  }

  /** The kernel's response: tool calls with ids (stable ones where the server sent none) and metadata under `provider`. */
  response(request: ChatRequest, provider: string, input: { finish?: string | null; usage: Usage; model?: string }): ChatResponse {
    const toolCalls = this.toolCalls(request, provider);
    const parts = this.reasoning.filter((r) => r.text).map((r): ReasoningPart => ({ type: 'reasoning', text: r.text, metadata: { [provider]: { field: r.field } satisfies ChatReasoningMeta } }));
    const own: ChatMessageMeta = {
      ...(this.extraContent ? { extraContent: this.extraContent } : {}),
      ...(this.reasoningDetails.length ? { reasoningDetails: this.reasoningDetails } : {}),
    };
    const message: AssistantMessage = {
      role: 'assistant', content: this.text,
      ...(parts.length ? { parts } : {}),
      ...(toolCalls.length ? { toolCalls } : {}),
      ...(Object.keys(own).length ? { metadata: { [provider]: own as Record<string, unknown> } satisfies ProviderMetadata } : {}),
    };
    const { finishReason, rawFinishReason } = normalizeFinishReason(input.finish, toolCalls.length > 0);
    return { message, usage: input.usage, finishReason, ...(rawFinishReason ? { rawFinishReason } : {}), model: input.model || request.model };
  }

  private toolCalls(request: ChatRequest, provider: string): ToolCall[] {
    return this.calls.filter((c) => c.name).map((c, i): ToolCall => {
      const raw = c.object && !c.text.trim() ? c.object : c.text;
      const { args, argsError } = parseToolArguments(raw);
      return {
        id: c.id || stableCallId(request.messages, i, c.name, typeof raw === 'string' ? raw : JSON.stringify(raw)),
        name: c.name,
        args,
        ...(argsError !== undefined ? { argsError } : {}),
        ...(c.extraContent ? { metadata: { [provider]: { extraContent: c.extraContent } satisfies ChatCallMeta } } : {}),
      };
    });
  }
}

/** The text of Magistral's `thinking` value: a string, or an array of `{type: 'text', text}` chunks. */
function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) return '';
  return value.map((v) => (typeof v === 'string' ? v : isObject(v) && typeof v.text === 'string' ? v.text : '')).join('');
}
