/**
 * Message content as the GenAI conventions record it (opt-in: `captureContent`): the input and
 * output messages of a model call in their JSON schemas, a tool call's arguments and result.
 * Every text goes through the kernel's secrets masking (every registered secret — provider keys,
 * `${VAR}` values, export headers — becomes `***`), then the `redact` option, then is cut to
 * `maxContentChars`. Media is never recorded: an image or file part is its type, media type and
 * size (a part of type `media`).
 */
import type { ChatResponse, Message, ToolCall } from '@oryxos/provider-spec';
import { finishReason } from './attributes.ts';

/** What `redact` accepts: patterns (a string is a literal) replaced by `[REDACTED]`, or a function. */
export type RedactOption = (RegExp | string)[] | ((text: string) => string);

export const REDACTED = '[REDACTED]';

/** Turns content into attribute values: masked, redacted, cut. */
export class ContentRecorder {
  private readonly steps: ((text: string) => string)[];

  constructor(private readonly mask: (text: string) => string, redact: RedactOption | undefined, private readonly maxChars: number) {
    this.steps = typeof redact === 'function' ? [redact] : (redact ?? []).filter((p) => p !== '').map((p) => {
      const re = typeof p === 'string' ? new RegExp(p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g') : new RegExp(p.source, p.flags.includes('g') ? p.flags : `${p.flags}g`);
      return (t: string) => t.replace(re, REDACTED);
    });
  }

  /** A text as it may be recorded. */
  text(text: string): string {
    let out = this.steps.reduce((t, step) => String(step(t)), this.mask(text));
    if (out.length > this.maxChars) out = `${out.slice(0, this.maxChars)}… [cut: ${out.length - this.maxChars} more characters]`;
    return out;
  }

  /** A JSON value as one string attribute (the conventions' form for spans that take no structured attributes). */
  json(value: unknown): string {
    // Masked as a whole, so a secret inside a nested value is found; cut after.
    return this.text(JSON.stringify(value));
  }

  /** `gen_ai.input.messages`: the messages sent, in order. */
  inputMessages(messages: Message[]): string {
    return this.json(messages.map(chatMessage));
  }

  /** `gen_ai.output.messages`: the one choice the model gave. */
  outputMessages(response: ChatResponse): string {
    return this.json([{ ...chatMessage(response.message), finish_reason: finishReason(response.finishReason, response.rawFinishReason) }]);
  }

  /** `gen_ai.tool.call.arguments`. */
  toolArguments(call: ToolCall): string {
    return this.json(call.argsError !== undefined ? call.argsError : call.args);
  }
}

type SemconvPart =
  | { type: 'text'; content: string }
  | { type: 'reasoning'; content: string }
  | { type: 'tool_call'; id: string; name: string; arguments: unknown }
  | { type: 'tool_call_response'; id: string; response: string }
  | { type: string; mime_type?: string; [key: string]: unknown };

/** One message in the conventions' ChatMessage shape. */
function chatMessage(m: Message): { role: string; parts: SemconvPart[] } {
  const parts: SemconvPart[] = [];
  if (m.role === 'tool') {
    parts.push({ type: 'tool_call_response', id: m.toolCallId, response: m.content });
  } else {
    if (m.role === 'assistant') for (const p of m.parts ?? []) if (p.text) parts.push({ type: 'reasoning', content: p.text });
    if (m.content) parts.push({ type: 'text', content: m.content });
    if (m.role === 'assistant') for (const c of m.toolCalls ?? []) parts.push({ type: 'tool_call', id: c.id, name: c.name, arguments: c.argsError ?? c.args });
  }
  if (m.role === 'user' || m.role === 'tool') {
    // Media as what it is, never its bytes: a generic part (a blob part would need the content).
    for (const p of m.parts ?? []) parts.push({ type: 'media', modality: p.type === 'image' ? 'image' : 'document', mime_type: p.mediaType, size_bytes: Math.floor((p.data.length * 3) / 4) });
  }
  return { role: m.role, parts };
}
