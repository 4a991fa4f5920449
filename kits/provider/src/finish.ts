import type { FinishReason } from '@oryxos/provider-spec';

/**
 * A server's finish reason in the words every provider shares. Chat-completions servers,
 * Anthropic and Ollama name the same outcomes differently (`length` / `max_tokens` /
 * `done_reason: length`, `content_filter` / `refusal`); a response that carries tool calls
 * finishes with `tool_calls` whatever the server said, and a word nobody uses is `other`
 * (Anthropic's `pause_turn`, a long turn of its own server tools paused, included).
 *
 * @example
 * normalizeFinishReason('max_tokens', false) // { finishReason: 'length', rawFinishReason: 'max_tokens' }
 */
export function normalizeFinishReason(raw: string | null | undefined, hasToolCalls: boolean): { finishReason: FinishReason; rawFinishReason?: string } {
  const word = typeof raw === 'string' ? raw.trim() : '';
  const finishReason = hasToolCalls && (!word || STOP.has(word) || CALLS.has(word)) ? 'tool_calls' : classify(word);
  return word ? { finishReason, rawFinishReason: word } : { finishReason };
}

const STOP = new Set(['stop', 'end_turn', 'stop_sequence', 'eos', 'end', 'STOP', 'FINISH_REASON_UNSPECIFIED']);
const CALLS = new Set(['tool_calls', 'function_call', 'tool_use', 'tool_call']);
const LENGTH = new Set(['length', 'max_tokens', 'model_length', 'max_output_tokens', 'MAX_TOKENS', 'model_context_window_exceeded']);
const FILTER = new Set(['content_filter', 'refusal', 'safety', 'recitation', 'SAFETY', 'RECITATION', 'PROHIBITED_CONTENT', 'BLOCKLIST', 'SPII']);

function classify(word: string): FinishReason {
  if (!word || STOP.has(word)) return 'stop';
  if (CALLS.has(word)) return 'tool_calls';
  if (LENGTH.has(word)) return 'length';
  if (FILTER.has(word)) return 'content_filter';
  if (word === 'error') return 'error';
  return 'other';
}
