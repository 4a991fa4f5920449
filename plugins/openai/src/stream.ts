import type { ChatRequest, ChatResponse, ToolCall } from '@oryxos/provider-spec';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { mapFinishReason, toToolCall } from './mapping.ts';

interface PartialCall { id?: string; name: string; args: string }

/**
 * Folds chat-completions stream chunks into one response: text deltas concatenated, tool-call
 * argument fragments joined per `index`, usage from the final chunk (`include_usage`).
 */
export class ChunkAssembler {
  private text = '';
  private readonly calls = new Map<number, PartialCall>();
  private lastIndex = -1;
  private finish: string | null | undefined;
  private usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
  private model?: string;

  /** True once a choice carried a finish reason: a stream without one was cut short. */
  get finished(): boolean { return this.finish != null; }

  /** Takes one chunk; returns its text delta, if any. */
  push(chunk: ChatCompletionChunk): string | undefined {
    if (chunk.model) this.model = chunk.model;
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices?.[0];
    if (!choice) return undefined;
    if (choice.finish_reason) this.finish = choice.finish_reason;
    const delta = choice.delta ?? {};
    for (const fragment of delta.tool_calls ?? []) {
      // Some servers omit `index` and send each call whole; a new id then means a new call.
      let index = fragment.index;
      if (typeof index !== 'number') {
        const known = fragment.id ? [...this.calls].find(([, c]) => c.id === fragment.id)?.[0] : undefined;
        index = known ?? (fragment.id || this.lastIndex < 0 ? this.lastIndex + 1 : this.lastIndex);
      }
      this.lastIndex = Math.max(this.lastIndex, index);
      const call = this.calls.get(index) ?? { name: '', args: '' };
      if (fragment.id && !call.id) call.id = fragment.id;
      const name = fragment.function?.name;
      // The name normally comes whole in the first fragment; a repeat of it is not a new part.
      if (name && name !== call.name) call.name += name;
      if (fragment.function?.arguments) call.args += fragment.function.arguments;
      this.calls.set(index, call);
    }
    if (typeof delta.content === 'string' && delta.content) {
      this.text += delta.content;
      return delta.content;
    }
    return undefined;
  }

  toolCalls(request: ChatRequest): ToolCall[] {
    return [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .filter(([, c]) => c.name)
      .map(([, c], i) => toToolCall(request, i, c.id, c.name, c.args));
  }

  response(request: ChatRequest): ChatResponse {
    const toolCalls = this.toolCalls(request);
    return {
      message: { role: 'assistant', content: this.text, ...(toolCalls.length ? { toolCalls } : {}) },
      usage: { inputTokens: this.usage?.prompt_tokens ?? 0, outputTokens: this.usage?.completion_tokens ?? 0 },
      finishReason: mapFinishReason(this.finish, toolCalls.length > 0),
      model: this.model || request.model,
    };
  }
}
