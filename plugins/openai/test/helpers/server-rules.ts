/**
 * What real servers check in a request, as their public documents say, so the loopback server
 * refuses what they would refuse with the error they send:
 *
 * - DeepSeek thinking mode (api-docs.deepseek.com/guides/thinking_mode, "Tool Calls"): between
 *   two user messages, when the model called tools, every assistant message's reasoning_content
 *   must be passed back in all later requests; otherwise HTTP 400 "Missing `reasoning_content`
 *   field in the assistant message at message index N" (the text as quoted in public issues:
 *   continuedev/continue#11285, langgenius/dify-official-plugins#2306).
 * - The original deepseek-reasoner (R1) (api-docs.deepseek.com/guides/reasoning_model): "if the
 *   reasoning_content field is included in the sequence of input messages, the API will return
 *   a 400 error".
 * - Kimi K2.5/K2.6 (platform.moonshot.ai/docs/guide/use-kimi-k2-thinking-model): an assistant
 *   tool-call message without reasoning_content is refused, "thinking is enabled but
 *   reasoning_content is missing in assistant tool call message at index N" (mastra-ai/mastra#12592,
 *   continuedev/continue#11600).
 * - Gemini 3 through the OpenAI-compatible endpoint (ai.google.dev/gemini-api/docs/thought-signatures):
 *   the thought signature of the current turn's function calls must come back; otherwise a 400
 *   whose body is a JSON array (discuss.ai.google.dev thread 109823).
 */
import type { Reply } from '@oryxos/provider-kit/testing';

type Body = { messages: Array<Record<string, any>> };

/** The message indexes of each turn (the messages after one user message, up to the next). */
function turns(body: Body): number[][] {
  const out: number[][] = [[]];
  body.messages.forEach((m, i) => { if (m.role === 'user') out.push([]); else out.at(-1)!.push(i); });
  return out;
}

const invalid = (message: string): Reply => ({ status: 400, json: { error: { message, type: 'invalid_request_error', param: null, code: 'invalid_request_error' } } });

/** DeepSeek's thinking-mode rule, or undefined when the request passes it. */
export function deepseekThinkingRule(body: Body): Reply | undefined {
  for (const turn of turns(body)) {
    const assistants = turn.filter((i) => body.messages[i]!.role === 'assistant');
    if (!assistants.some((i) => body.messages[i]!.tool_calls?.length)) continue;
    const missing = assistants.find((i) => typeof body.messages[i]!.reasoning_content !== 'string');
    if (missing !== undefined) {
      return invalid(`Missing \`reasoning_content\` field in the assistant message at message index ${missing}. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls`);
    }
  }
  return undefined;
}

/** The original deepseek-reasoner's rule: no reasoning_content in input. */
export function deepseekR1Rule(body: Body): Reply | undefined {
  const at = body.messages.findIndex((m) => 'reasoning_content' in m);
  return at < 0 ? undefined : invalid(`The reasoning_content field is not allowed in input messages (message index ${at})`);
}

/** Kimi's rule for thinking models: every assistant tool-call message carries reasoning_content. */
export function kimiThinkingRule(body: Body): Reply | undefined {
  const at = body.messages.findIndex((m) => m.role === 'assistant' && m.tool_calls?.length && typeof m.reasoning_content !== 'string');
  return at < 0 ? undefined : {
    status: 400,
    json: { error: { message: `thinking is enabled but reasoning_content is missing in assistant tool call message at index ${at}`, type: 'invalid_request_error' } },
  };
}

/** Gemini 3's rule: the first function call of each step of the current turn carries its thought signature, as sent. */
export function geminiSignatureRule(signatures: Map<string, string>) {
  return (body: Body): Reply | undefined => {
    const current = turns(body).at(-1)!;
    for (const i of current) {
      const m = body.messages[i]!;
      const first = m.role === 'assistant' ? m.tool_calls?.[0] : undefined;
      if (!first) continue;
      const expected = signatures.get(first.id);
      if (expected !== undefined && first.extra_content?.google?.thought_signature !== expected) {
        return {
          status: 400,
          json: [{ error: {
            code: 400, status: 'INVALID_ARGUMENT',
            message: `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${first.function.name}\` , position ${i + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
          } }],
        };
      }
    }
    return undefined;
  };
}
