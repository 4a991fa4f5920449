import type { AssistantMessage, ChatRequest, ChatResponse, ReasoningPart, ToolCall, Usage } from '@oryxos/provider-spec';
import { normalizeFinishReason, parseToolArguments, stableCallId } from '@oryxos/provider-kit';
import type { AnthropicReasoningMeta } from './mapping.ts';

/** A content block of an answer, as the API sends it (whole, or being assembled from stream deltas). */
interface Block {
  type: string;
  text?: string;
  thinking?: string;
  signature?: string;
  data?: string;
  id?: string;
  name?: string;
  input?: unknown;
  /** `input_json_delta` fragments, joined. */
  json?: string;
}

/** The usage object of a Messages API answer. */
export interface WireUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

const n = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined);

/**
 * Anthropic's usage as the kernel's: Anthropic's `input_tokens` counts only the tokens after
 * the last cache breakpoint, so `inputTokens` adds the cached ones back (read and written);
 * `cacheReadTokens` / `cacheWriteTokens` are `cache_read_input_tokens` /
 * `cache_creation_input_tokens`, undefined when the API leaves them out.
 *
 * @example
 * anthropicUsage({ input_tokens: 12, output_tokens: 30, cache_read_input_tokens: 2000, cache_creation_input_tokens: 0 })
 * // { inputTokens: 2012, outputTokens: 30, cacheReadTokens: 2000, cacheWriteTokens: 0 }
 */
export function anthropicUsage(u: WireUsage | null | undefined): Usage {
  const read = n(u?.cache_read_input_tokens);
  const write = n(u?.cache_creation_input_tokens);
  return {
    inputTokens: (n(u?.input_tokens) ?? 0) + (read ?? 0) + (write ?? 0),
    outputTokens: n(u?.output_tokens) ?? 0,
    ...(read !== undefined ? { cacheReadTokens: read } : {}),
    ...(write !== undefined ? { cacheWriteTokens: write } : {}),
  };
}

/**
 * Content blocks of an answer to the kernel's response: `text` blocks joined, `thinking` and
 * `redacted_thinking` as reasoning parts carrying their signature (or encrypted data) and the
 * block they came as, `tool_use` as tool calls; the stop reason normalised
 * (`max_tokens` → `length`, `refusal` → `content_filter`), its word kept.
 */
export function toResponse(request: ChatRequest, provider: string, input: { blocks: Block[]; stopReason?: string | null; usage: Usage; model?: string }): ChatResponse {
  let text = '';
  const parts: ReasoningPart[] = [];
  const toolCalls: ToolCall[] = [];
  for (const b of input.blocks) {
    if (b.type === 'text') text += b.text ?? '';
    else if (b.type === 'thinking') parts.push({ type: 'reasoning', text: b.thinking ?? '', ...(b.signature ? { signature: b.signature } : {}), metadata: { [provider]: { block: 'thinking' } satisfies AnthropicReasoningMeta } });
    else if (b.type === 'redacted_thinking') parts.push({ type: 'reasoning', text: '', redacted: b.data ?? '', metadata: { [provider]: { block: 'redacted_thinking' } satisfies AnthropicReasoningMeta } });
    else if (b.type === 'tool_use' && b.name) {
      const raw = b.json !== undefined && b.json.trim() ? b.json : b.input;
      const { args, argsError } = parseToolArguments(raw);
      toolCalls.push({ id: b.id || stableCallId(request.messages, toolCalls.length, b.name, raw ?? null), name: b.name, args, ...(argsError !== undefined ? { argsError } : {}) });
    }
  }
  const message: AssistantMessage = { role: 'assistant', content: text, ...(parts.length ? { parts } : {}), ...(toolCalls.length ? { toolCalls } : {}) };
  const { finishReason, rawFinishReason } = normalizeFinishReason(input.stopReason, toolCalls.length > 0);
  return { message, usage: input.usage, finishReason, ...(rawFinishReason ? { rawFinishReason } : {}), model: input.model || request.model };
}

/** A whole Messages API answer to the kernel's response; undefined when it is not one. */
export function fromMessage(request: ChatRequest, provider: string, body: unknown): ChatResponse | undefined {
  const b = body as { type?: unknown; content?: unknown; stop_reason?: string | null; usage?: WireUsage; model?: string } | null;
  if (!b || typeof b !== 'object' || !Array.isArray(b.content)) return undefined;
  return toResponse(request, provider, { blocks: b.content as Block[], stopReason: b.stop_reason, usage: anthropicUsage(b.usage), model: b.model });
}

const IMPLIED: Record<string, string> = { text_delta: 'text', thinking_delta: 'thinking', signature_delta: 'thinking', input_json_delta: 'tool_use' };

/** A delta to show as it arrives. */
export type Delta = { type: 'text'; delta: string } | { type: 'reasoning'; delta: string };

/**
 * Folds the Messages stream (`message_start`, `content_block_start/delta/stop`,
 * `message_delta`, `message_stop`) into one response: `text_delta` and `thinking_delta` are
 * shown as they come, `signature_delta` completes a thinking block, `input_json_delta`
 * fragments are joined per block; usage is `message_start`'s, updated by `message_delta`'s
 * (output tokens, and input and cache figures when the API repeats them there).
 */
export class MessageStreamAssembler {
  private readonly blocks: Block[] = [];
  private usage: WireUsage = {};
  private stopReason?: string | null;
  private model?: string;
  /** True once `message_stop` arrived: a stream without it was cut short. */
  finished = false;

  push(event: { type: string; [key: string]: unknown }): Delta[] {
    switch (event.type) {
      case 'message_start': {
        const message = event.message as { model?: string; usage?: WireUsage; content?: Block[] } | undefined;
        this.model = message?.model;
        this.usage = { ...message?.usage };
        return [];
      }
      case 'content_block_start': {
        const block = { ...(event.content_block as Block) };
        this.blocks[event.index as number] = block;
        // A block may start with content (a whole redacted_thinking, a tool_use's input `{}`).
        if (block.type === 'text' && block.text) return [{ type: 'text', delta: block.text }];
        if (block.type === 'thinking' && block.thinking) return [{ type: 'reasoning', delta: block.thinking }];
        return [];
      }
      case 'content_block_delta': {
        const delta = event.delta as { type: string; text?: string; thinking?: string; signature?: string; partial_json?: string };
        // A delta without its block's start (a proxy that drops events) still counts, as the block its type implies.
        const block = this.blocks[event.index as number] ??= { type: IMPLIED[delta.type] ?? 'text' };
        if (delta.type === 'text_delta' && delta.text) { block.text = (block.text ?? '') + delta.text; return [{ type: 'text', delta: delta.text }]; }
        if (delta.type === 'thinking_delta' && delta.thinking) { block.thinking = (block.thinking ?? '') + delta.thinking; return [{ type: 'reasoning', delta: delta.thinking }]; }
        if (delta.type === 'signature_delta' && delta.signature) block.signature = (block.signature ?? '') + delta.signature;
        if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string') block.json = (block.json ?? '') + delta.partial_json;
        return [];
      }
      case 'message_delta': {
        const delta = event.delta as { stop_reason?: string | null } | undefined;
        if (delta?.stop_reason !== undefined) this.stopReason = delta.stop_reason;
        const usage = event.usage as WireUsage | undefined;
        if (usage) for (const [key, value] of Object.entries(usage)) if (typeof value === 'number') (this.usage as Record<string, number>)[key] = value;
        return [];
      }
      case 'message_stop': this.finished = true; return [];
      default: return [];
    }
  }

  response(request: ChatRequest, provider: string): ChatResponse {
    return toResponse(request, provider, { blocks: this.blocks.filter(Boolean), stopReason: this.stopReason, usage: anthropicUsage(this.usage), model: this.model });
  }
}
