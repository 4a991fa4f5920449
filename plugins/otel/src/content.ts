/**
 * Message content as the GenAI conventions record it (opt-in: `captureContent`): the input and
 * output messages of a model call in their JSON schemas, a tool call's arguments and result.
 * Every text goes through the kernel's secrets masking (every registered secret — provider keys,
 * `${VAR}` values, export headers — becomes `***`), then the `redact` option, then is cut to
 * `maxContentChars` (each text on its own: the JSON around them stays whole). Media is never
 * recorded: an image or file part is its type, media type and size (a part of type `media`).
 */
import type { ChatResponse, Message, ToolCall } from '@oryxos/provider-spec';
import { finishReason } from './attributes.ts';

/** What `redact` accepts: patterns (a string is a literal) replaced by `[REDACTED]`, or a function. */
export type RedactOption = (RegExp | string)[] | ((text: string) => string);

export const REDACTED = '[REDACTED]';

/** Turns content into attribute values: each text masked, redacted and cut, the JSON around it whole. */
export class ContentRecorder {
  private readonly steps: ((text: string) => string)[];

  constructor(private readonly mask: (text: string) => string, redact: RedactOption | undefined, private readonly maxChars: number) {
    this.steps = typeof redact === 'function' ? [redact] : (redact ?? []).filter((p) => p !== '').map((p) => {
      const re = typeof p === 'string' ? new RegExp(p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g') : new RegExp(p.source, p.flags.includes('g') ? p.flags : `${p.flags}g`);
      return (t: string) => t.replace(re, REDACTED);
    });
  }

  /** A text as it may be recorded: masked, redacted, then cut to `maxContentChars` with a marker. */
  text(text: string): string {
    const out = this.clean(text);
    return out.length > this.maxChars ? `${out.slice(0, this.maxChars)}… [cut: ${out.length - this.maxChars} more characters]` : out;
  }

  /**
   * A JSON value (tool arguments) as it may be recorded: masked and redacted as JSON text (so a
   * secret in any nested string is found), the value again when that still parses and fits,
   * else the cut text.
   */
  value(value: unknown): unknown {
    const json = this.clean(JSON.stringify(value) ?? 'null');
    if (json.length > this.maxChars) return this.text(json);
    try { return JSON.parse(json); } catch { return json; }
  }

  /** `gen_ai.input.messages`: the messages sent, in order, as one JSON string. */
  inputMessages(messages: Message[]): string {
    return JSON.stringify(messages.map((m) => this.chatMessage(m)));
  }

  /** `gen_ai.output.messages`: the one choice the model gave. */
  outputMessages(response: ChatResponse): string {
    return JSON.stringify([{ ...this.chatMessage(response.message), finish_reason: finishReason(response.finishReason, response.rawFinishReason) }]);
  }

  /** `gen_ai.output.messages` of a run: its answer. */
  answer(text: string): string {
    return JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: this.text(text) }], finish_reason: 'stop' }]);
  }

  /** `gen_ai.tool.call.arguments`, as a JSON string. */
  toolArguments(call: ToolCall): string {
    const value = call.argsError !== undefined ? this.text(call.argsError) : this.value(call.args);
    return typeof value === 'string' ? value : JSON.stringify(value);
  }

  private clean(text: string): string {
    return this.steps.reduce((t, step) => String(step(t)), this.mask(text));
  }

  /** One message in the conventions' ChatMessage shape. */
  private chatMessage(m: Message): { role: string; parts: SemconvPart[] } {
    const parts: SemconvPart[] = [];
    if (m.role === 'tool') {
      parts.push({ type: 'tool_call_response', id: m.toolCallId, response: this.text(m.content) });
    } else {
      if (m.role === 'assistant') for (const p of m.parts ?? []) if (p.text) parts.push({ type: 'reasoning', content: this.text(p.text) });
      if (m.content) parts.push({ type: 'text', content: this.text(m.content) });
      if (m.role === 'assistant') {
        for (const c of m.toolCalls ?? []) parts.push({ type: 'tool_call', id: c.id, name: c.name, arguments: c.argsError !== undefined ? this.text(c.argsError) : this.value(c.args) });
      }
    }
    if (m.role === 'user' || m.role === 'tool') {
      // Media as what it is, never its bytes: a generic part (a blob part would need the content).
      for (const p of m.parts ?? []) parts.push({ type: 'media', modality: p.type === 'image' ? 'image' : 'document', mime_type: p.mediaType, size_bytes: Math.floor((p.data.length * 3) / 4) });
    }
    return { role: m.role, parts };
  }
}

type SemconvPart =
  | { type: 'text'; content: string }
  | { type: 'reasoning'; content: string }
  | { type: 'tool_call'; id: string; name: string; arguments: unknown }
  | { type: 'tool_call_response'; id: string; response: string }
  | { type: string; mime_type?: string; [key: string]: unknown };
