import { metadataFor, reasoningOf, type AssistantMessage, type Message } from '@oryxos/provider-spec';
import type { ChatCallMeta, ChatMessageMeta, ChatReasoningMeta } from '@oryxos/provider-kit';

/**
 * How reasoning goes back to the server on the assistant messages of later requests:
 *
 * - `auto` (default): the reasoning text goes back in the field it came in
 *   (`reasoning_content`, `reasoning`) on the assistant messages of every turn (the messages
 *   between two user messages) that called tools, and of the turn in progress: DeepSeek's
 *   thinking mode and Kimi K2.5/K2.6 reject such a request without it ("Missing
 *   `reasoning_content` field", "reasoning_content is missing in assistant tool call
 *   message"). Once the server has sent `reasoning_content` in the conversation, an assistant
 *   message of those turns that has none gets `reasoning_content: ""`. Turns without tool calls
 *   send none (DeepSeek ignores it there; the original deepseek-reasoner, R1, refused it).
 * - `always`: every assistant message gets `reasoning_content` (its reasoning, or `""`), for a
 *   server that wants it on every turn.
 * - `never`: no reasoning text is sent back.
 *
 * Whatever the setting, what the server needs to check its own work goes back exactly as
 * sent: Gemini's `extra_content` (the `thought_signature`) on each tool call and on the
 * message, OpenRouter's `reasoning_details` on the message.
 */
export type ReasoningEcho = 'auto' | 'always' | 'never';

/** The extra fields of one assistant message on the wire. */
export interface AssistantExtras {
  reasoning_content?: string;
  reasoning?: string;
  extra_content?: Record<string, unknown>;
  reasoning_details?: Record<string, unknown>[];
}

/**
 * For each message index, the fields to add to that assistant message (only for messages that
 * get some). `provider` is the name the provider is registered under: only its own metadata
 * is read.
 *
 * @example
 * echoFields(request.messages, 'deepseek', 'auto').get(3) // { reasoning_content: 'The user asks…' }
 */
export function echoFields(messages: Message[], provider: string, mode: ReasoningEcho): Map<number, AssistantExtras> {
  const out = new Map<number, AssistantExtras>();
  const inToolTurn = toolTurnMembers(messages);
  const speaksReasoningContent = messages.some((m) => reasoningOf(m).some((p) => fieldOf(p, provider) === 'reasoning_content'));
  messages.forEach((m, i) => {
    if (m.role !== 'assistant') return;
    const extras: AssistantExtras = { ...messageMeta(m, provider) };
    if (mode !== 'never' && (mode === 'always' || inToolTurn.has(i))) {
      const texts = reasoningTexts(m, provider);
      if (texts.reasoning !== undefined) extras.reasoning = texts.reasoning;
      if (texts.reasoning_content !== undefined) extras.reasoning_content = texts.reasoning_content;
      else if (mode === 'always' || speaksReasoningContent) extras.reasoning_content = '';
    }
    if (Object.keys(extras).length) out.set(i, extras);
  });
  return out;
}

/** The `extra_content` a tool call came with (Gemini's thought signature), to send back on it. */
export function callExtraContent(call: { metadata?: Record<string, Record<string, unknown>> }, provider: string): Record<string, unknown> | undefined {
  return (metadataFor(call, provider) as ChatCallMeta | undefined)?.extraContent;
}

/** Indexes of the assistant messages in a turn that called tools, or in the turn in progress. */
function toolTurnMembers(messages: Message[]): Set<number> {
  const members = new Set<number>();
  let turn: number[] = [];
  let called = false;
  const close = (current: boolean) => { if (called || current) for (const i of turn) members.add(i); turn = []; called = false; };
  messages.forEach((m, i) => {
    if (m.role === 'user') close(false);
    if (m.role !== 'assistant') return;
    turn.push(i);
    if (m.toolCalls?.length) called = true;
  });
  close(true);
  return members;
}

function fieldOf(part: { metadata?: Record<string, Record<string, unknown>> }, provider: string): string | undefined {
  return (metadataFor(part, provider) as ChatReasoningMeta | undefined)?.field;
}

/** The reasoning of a message joined per field, for the fields a server takes back. */
function reasoningTexts(m: AssistantMessage, provider: string): { reasoning_content?: string; reasoning?: string } {
  const out: { reasoning_content?: string; reasoning?: string } = {};
  for (const part of reasoningOf(m)) {
    const field = fieldOf(part, provider);
    if (field === 'reasoning_content' || field === 'reasoning') out[field] = (out[field] ?? '') + part.text;
  }
  return out;
}

function messageMeta(m: AssistantMessage, provider: string): AssistantExtras {
  const meta = metadataFor(m, provider) as ChatMessageMeta | undefined;
  return {
    ...(meta?.extraContent ? { extra_content: meta.extraContent } : {}),
    ...(meta?.reasoningDetails?.length ? { reasoning_details: meta.reasoningDetails } : {}),
  };
}
