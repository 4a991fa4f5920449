import type { ChatRequest, ChatResponse } from '@oryxos/provider-spec';
import { ChatAnswer, type AnswerDelta, type PartialCall } from './chat-answer.ts';
import { chatUsage, type WireUsage } from './chat-usage.ts';
import { ServerReportedError, serverErrorOf } from './error-body.ts';

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * Folds chat-completions stream chunks from any OpenAI-compatible server into one response.
 *
 * - Text and reasoning deltas come back from {@link push} to show as they arrive; `content`
 *   may be a string or an array of typed parts (Magistral), reasoning under any of its names.
 * - Tool-call fragments are joined per call: by `id` when the fragment has one (a new id at a
 *   taken `index` is a new call: Ollama's `/v1`, SGLang and gateways send parallel calls all
 *   at `index: 0`), else by `index`, else onto the last call. Arguments may come as text
 *   fragments or as a whole object.
 * - An error event inside the stream (`{"object": "error", …}` from vLLM and SGLang,
 *   `{"error": …}`) throws {@link ServerReportedError} with the server's message.
 * - Usage comes from whichever chunk carries it (`stream_options.include_usage`).
 *
 * @example
 * const assembler = new ChatChunkAssembler();
 * for await (const chunk of stream) for (const d of assembler.push(chunk)) show(d);
 * const response = assembler.response(request, 'openai');
 */
export class ChatChunkAssembler {
  private readonly answer = new ChatAnswer();
  /** The call each wire `index` currently continues. */
  private readonly byIndex = new Map<number, PartialCall>();
  private finish?: string;
  private usage?: WireUsage;
  private model?: string;

  /** True once a choice carried a finish reason: a stream without one was cut short. */
  get finished(): boolean { return this.finish !== undefined; }

  /** Takes one chunk; returns what it adds to show (text and reasoning deltas). */
  push(chunk: unknown): AnswerDelta[] {
    if (!isObject(chunk)) return [];
    if (chunk.object === 'error' || chunk.error !== undefined) throw new ServerReportedError(serverErrorOf(chunk) ?? { message: JSON.stringify(chunk) }, 'stream');
    if (typeof chunk.model === 'string' && chunk.model) this.model = chunk.model;
    if (isObject(chunk.usage)) this.usage = chunk.usage as WireUsage;
    const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
    if (!isObject(choice)) return [];
    if (typeof choice.finish_reason === 'string' && choice.finish_reason) this.finish = choice.finish_reason;
    const delta = isObject(choice.delta) ? choice.delta : isObject(choice.message) ? choice.message : {};
    if (Array.isArray(delta.tool_calls)) for (const fragment of delta.tool_calls) if (isObject(fragment)) this.addFragment(fragment);
    return this.answer.read(delta);
  }

  private addFragment(fragment: Record<string, unknown>): void {
    const id = typeof fragment.id === 'string' && fragment.id ? fragment.id : undefined;
    const index = typeof fragment.index === 'number' ? fragment.index : undefined;
    const fn = isObject(fragment.function) ? fragment.function : {};
    const name = typeof fn.name === 'string' ? fn.name : '';
    const calls = this.answer.calls;
    let call = id ? calls.find((c) => c.id === id) : undefined;
    if (!call) {
      const current = index !== undefined ? this.byIndex.get(index) : calls.at(-1);
      // Continue the call at this index unless this fragment starts another one: a new id where
      // the call has one, or a name after the call's arguments are already complete (a server
      // that sends ids nowhere and every call whole at the same index).
      const starts = (id && current?.id) || (!id && name && current?.name && complete(current));
      if (current && !starts) call = current;
    }
    if (!call) {
      call = { name: '', text: '' };
      calls.push(call);
    }
    if (index !== undefined) this.byIndex.set(index, call);
    if (id && !call.id) call.id = id;
    // The name normally comes whole in the first fragment; a repeat of it is not a new piece.
    if (name && name !== call.name) call.name += name;
    if (typeof fn.arguments === 'string') call.text += fn.arguments;
    else if (isObject(fn.arguments)) call.object = { ...call.object, ...fn.arguments };
    if (isObject(fragment.extra_content)) call.extraContent = { ...call.extraContent, ...fragment.extra_content };
  }

  /** The whole response once the stream has ended. */
  response(request: ChatRequest, provider: string): ChatResponse {
    return this.answer.response(request, provider, { finish: this.finish, usage: chatUsage(this.usage), model: this.model });
  }
}

/** True when a call's arguments already hold one whole JSON value. */
function complete(call: PartialCall): boolean {
  if (call.object) return true;
  const text = call.text.trim();
  if (!text) return false;
  try { JSON.parse(text); return true; } catch { return false; }
}
