import { OryxError, type RetryPolicy } from '@oryxos/provider-spec';
import { shape as s, validateOptions as validate } from '@oryxos/schema-kit';
import { PROVIDER_CALL_DEFAULTS, PROVIDER_CALL_SHAPE, modelMatcher, redactUrl, retryPolicy, type ProviderCallOptions } from '@oryxos/provider-kit';

/** Options of {@link ollama}. Every field is optional; the timeout and retry options are the kernel's shared ones. */
export interface OllamaOptions extends ProviderCallOptions {
  /** The provider name agents refer to (`provider:` in AGENT.md). Default `ollama`. */
  name?: string;
  /** Where Ollama listens. Default: `OLLAMA_HOST` (read at setup), else `http://127.0.0.1:11434`. */
  host?: string;
  /** Model used when the agent names none, e.g. `qwen2.5:7b`. */
  defaultModel?: string;
  /** How long Ollama keeps the model loaded after a call: `'5m'`, `'1h'`, seconds, `-1` (forever), `0` (unload). */
  keepAlive?: string | number;
  /** Ollama model options sent with every call (`num_ctx`, `temperature`, `seed`, …). */
  modelOptions?: Record<string, unknown>;
  /** Extra HTTP headers (for a proxy in front of Ollama). */
  headers?: Record<string, string>;
  /**
   * Which models take images (sent as `images`): `true`, `false` (the kernel sends a short
   * note instead), or model names with `*` (`['llava*', 'qwen2.5vl*', 'gemma3*']`). Default false.
   */
  images?: boolean | string[];
  /**
   * How long Ollama may send nothing before the answer starts, in ms: loading the model into
   * memory and reading the prompt happen then. Default 120000 (2 min), or `timeoutMs` if larger.
   */
  firstByteTimeoutMs?: number;
}

/**
 * Ollama's own defaults: loading a model and reading a long prompt (on a CPU) come before the
 * first byte, so that wait gets 2 min; a whole call 5 min, since local models are often slow.
 */
export const OLLAMA_DEFAULTS = { firstByteTimeoutMs: 120_000, callTimeoutMs: 300_000 } as const;

const schema = s.object({
  name: s.string({ pattern: /^[A-Za-z0-9][\w.-]*$/ }).optional(),
  host: s.string({ min: 1 }).refine((host) => parseHost(host) !== undefined, 'a host, host:port or URL').optional(),
  defaultModel: s.string({ min: 1 }).optional(),
  keepAlive: s.union(s.string({ min: 1 }), s.integer()).optional(),
  modelOptions: s.record(s.unknown()).optional(),
  headers: s.record(s.string()).optional(),
  images: s.union(s.boolean(), s.array(s.string({ min: 1 }))).optional(),
  firstByteTimeoutMs: s.integer({ above: 0 }).optional(),
  ...PROVIDER_CALL_SHAPE,
});

/** Validates the factory options at once; the error names the field. */
export function validateOptions(options: unknown): OllamaOptions {
  return validate(schema, options, { plugin: 'ollama', code: 'ORYX_E_OLLAMA_OPTIONS', example: "ollama({ defaultModel: 'qwen2.5:7b' })" });
}

/**
 * The base URL Ollama is reached at, as the SDK computes it: `host:port` gets `http://`,
 * a bare host gets port 11434, `:port` means 127.0.0.1.
 */
export function parseHost(host: string): string | undefined {
  let value = host.trim();
  const explicit = value.includes('://');
  if (value.startsWith(':')) value = `http://127.0.0.1${value}`;
  else if (!explicit) value = `http://${value}`;
  let url: URL;
  try { url = new URL(value); } catch { return undefined; }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  const port = url.port || (explicit ? (url.protocol === 'https:' ? '443' : '80') : '11434');
  return `${url.protocol}//${url.hostname}:${port}${url.pathname}`.replace(/\/+$/, '');
}

/** Options with the environment applied, as the provider uses them. */
export interface OllamaSettings {
  name: string;
  host: string;
  /** The base URL, for messages. */
  url: string;
  defaultModel?: string;
  keepAlive?: string | number;
  modelOptions?: Record<string, unknown>;
  headers: Record<string, string>;
  /** Whether a model takes images. */
  images: (model: string) => boolean;
  /** Idle limit between two parts of a stream. */
  timeoutMs: number;
  /** Limit before the first byte of the answer (model loading counts). */
  firstByteTimeoutMs: number;
  /** Cap on one whole call attempt. */
  callTimeoutMs: number;
  retry: RetryPolicy;
}

/** Fills in defaults; `OLLAMA_HOST` is read here (at setup), never at import. */
export function resolveSettings(options: OllamaOptions, env: NodeJS.ProcessEnv): OllamaSettings {
  const fromEnv = env.OLLAMA_HOST?.trim() ? env.OLLAMA_HOST.trim() : undefined;
  const host = options.host ?? fromEnv ?? 'http://127.0.0.1:11434';
  let url = parseHost(host);
  if (!url) {
    throw new OryxError('ORYX_E_OLLAMA_OPTIONS', `OLLAMA_HOST is not a host, host:port or URL (was ${JSON.stringify(redactUrl(host))})`, {
      hint: 'Fix OLLAMA_HOST (e.g. 127.0.0.1:11434), or pass host to ollama().', data: { field: 'OLLAMA_HOST' },
    });
  }
  const timeoutMs = options.timeoutMs ?? PROVIDER_CALL_DEFAULTS.timeoutMs;
  // Ollama listens on 0.0.0.0 when OLLAMA_HOST says so; a client connects to it on loopback.
  if (new URL(url).hostname === '0.0.0.0') url = url.replace('0.0.0.0', '127.0.0.1');
  return {
    name: options.name ?? 'ollama',
    host: url,
    url,
    defaultModel: options.defaultModel,
    keepAlive: options.keepAlive,
    modelOptions: options.modelOptions,
    headers: options.headers ?? {},
    images: modelMatcher(options.images ?? false),
    timeoutMs,
    firstByteTimeoutMs: options.firstByteTimeoutMs ?? Math.max(OLLAMA_DEFAULTS.firstByteTimeoutMs, timeoutMs),
    callTimeoutMs: options.callTimeoutMs ?? OLLAMA_DEFAULTS.callTimeoutMs,
    retry: retryPolicy(options),
  };
}

