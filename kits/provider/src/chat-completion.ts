import type { ChatRequest, ChatResponse } from '@oryxos/provider-spec';
import { ChatAnswer } from './chat-answer.ts';
import { chatUsage, type WireUsage } from './chat-usage.ts';
import { ServerReportedError, serverErrorOf } from './error-body.ts';

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * A whole (non-streamed) chat completion as the kernel's response, from any OpenAI-compatible
 * server: content as a string or an array of typed parts (Magistral's `thinking` parts become
 * reasoning), reasoning under any of its field names, tool-call arguments as JSON text or as
 * an object, Gemini's `extra_content` kept on each call, cache figures from the usage,
 * the finish reason normalised with the server's word kept. Undefined when the body holds no
 * choice with a message; a body that is an error (`{"object": "error"}` with 200) throws
 * {@link ServerReportedError}.
 *
 * @example
 * const response = fromChatCompletion(request, await client.chat.completions.create(body), 'deepseek');
 * response?.message.parts // [{ type: 'reasoning', text: '…', metadata: { deepseek: { field: 'reasoning_content' } } }]
 */
export function fromChatCompletion(request: ChatRequest, completion: unknown, provider: string): ChatResponse | undefined {
  if (!isObject(completion)) return undefined;
  const choice = Array.isArray(completion.choices) ? completion.choices[0] : undefined;
  if (!isObject(choice) || !isObject(choice.message)) {
    const server = serverErrorOf(completion);
    if (server) throw new ServerReportedError(server, 'response');
    return undefined;
  }
  const answer = new ChatAnswer();
  answer.read(choice.message);
  const calls = Array.isArray(choice.message.tool_calls) ? choice.message.tool_calls : [];
  for (const call of calls) {
    if (!isObject(call)) continue;
    const fn = isObject(call.function) ? call.function : {};
    if (typeof fn.name !== 'string' || !fn.name) continue;
    answer.calls.push({
      ...(typeof call.id === 'string' && call.id ? { id: call.id } : {}),
      name: fn.name,
      text: typeof fn.arguments === 'string' ? fn.arguments : '',
      ...(isObject(fn.arguments) ? { object: fn.arguments } : {}),
      ...(isObject(call.extra_content) ? { extraContent: call.extra_content } : {}),
    });
  }
  return answer.response(request, provider, {
    finish: typeof choice.finish_reason === 'string' ? choice.finish_reason : undefined,
    usage: chatUsage(completion.usage as WireUsage | undefined),
    model: typeof completion.model === 'string' ? completion.model : undefined,
  });
}
