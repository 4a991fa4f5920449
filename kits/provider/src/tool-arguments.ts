const RAW_LIMIT = 500;

/**
 * A tool call's arguments as the server sent them, whatever their form: a JSON object already
 * (Ollama, some llama.cpp builds, a LiteLLM streaming path), the JSON text of one (the
 * chat-completions norm), the JSON text of that text (double-encoded), or nothing (`{}`).
 * Anything else gives `args: {}` and `argsError`, which the kernel turns into an error result
 * the model can correct; the raw text is quoted, cut at 500 characters.
 *
 * @example
 * parseToolArguments('{"path":"a.txt"}') // { args: { path: 'a.txt' } }
 * parseToolArguments({ path: 'a.txt' })  // { args: { path: 'a.txt' } }
 * parseToolArguments('{"path":')         // { args: {}, argsError: 'Unexpected end of JSON input; raw: {"path":' }
 */
export function parseToolArguments(raw: unknown): { args: Record<string, unknown>; argsError?: string } {
  if (raw === undefined || raw === null) return { args: {} };
  if (typeof raw === 'object' && !Array.isArray(raw)) return { args: raw as Record<string, unknown> };
  const text = typeof raw === 'string' ? raw.trim() : JSON.stringify(raw);
  if (!text) return { args: {} };
  const shown = text.length > RAW_LIMIT ? `${text.slice(0, RAW_LIMIT)}… (${text.length} chars)` : text;
  if (typeof raw !== 'string') return { args: {}, argsError: `expected a JSON object, got ${kind(raw)}; raw: ${shown}` };
  let value: unknown;
  try {
    value = JSON.parse(text);
    // Some servers encode the arguments twice: a JSON string holding the JSON object.
    if (typeof value === 'string' && /^\s*\{/.test(value)) value = JSON.parse(value);
  } catch (error) {
    return { args: {}, argsError: `${(error as Error).message}; raw: ${shown}` };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { args: {}, argsError: `expected a JSON object, got ${kind(value)}; raw: ${shown}` };
  return { args: value as Record<string, unknown> };
}

const kind = (value: unknown) => (Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value);
