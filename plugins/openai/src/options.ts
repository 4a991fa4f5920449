import { shape as s, validateOptions as validate } from '@oryxos/schema-kit';
import type { RetryPolicy } from '@oryxos/provider-spec';
import { PROVIDER_CALL_DEFAULTS, PROVIDER_CALL_SHAPE, modelMatcher, retryPolicy, type ProviderCallOptions } from '@oryxos/provider-kit';

/** Options of {@link openai}. Every field is optional; the timeout and retry options are the kernel's shared ones. */
export interface OpenAIOptions extends ProviderCallOptions {
  /** The provider name agents refer to (`provider:` in AGENT.md). Default `openai`. */
  name?: string;
  /** API key. Default: the `OPENAI_API_KEY` environment variable, read at setup. */
  apiKey?: string;
  /** Base URL of an OpenAI-compatible API (ends in `/v1`). Default: `OPENAI_BASE_URL`, else OpenAI. */
  baseURL?: string;
  /** Model used when the agent names none. */
  defaultModel?: string;
  /** Extra HTTP headers sent with every request. */
  headers?: Record<string, string>;
  /**
   * What reasoning goes back to the server on later requests (see the README): `auto` (the
   * field it came in, on the turns that called tools: what DeepSeek's thinking mode and Kimi
   * require), `always` (`reasoning_content` on every assistant message), `never`. Default `auto`.
   */
  reasoningEcho?: 'auto' | 'always' | 'never';
  /**
   * Which models take images: `true` (all), `false` (none: the kernel sends a short note
   * instead), or model names, `*` matching any run of characters (`['gpt-4o*', 'qwen2.5-vl*']`).
   * Default: `true` on OpenAI's own API (no baseURL), `false` on any other server.
   */
  images?: boolean | string[];
  /**
   * The request field that caps the answer's length when a run sets one: `max_completion_tokens`
   * (OpenAI's own API; its reasoning models refuse `max_tokens`) or `max_tokens` (most other
   * servers). Default: `max_completion_tokens` without a baseURL, else `max_tokens`.
   */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
}

const schema = s.object({
  name: s.string({ pattern: /^[A-Za-z0-9][\w.-]*$/ }).optional(),
  apiKey: s.string({ min: 1 }).optional(),
  baseURL: s.string().refine((url) => URL.canParse(url), 'a URL string').optional(),
  defaultModel: s.string({ min: 1 }).optional(),
  headers: s.record(s.string()).optional(),
  reasoningEcho: s.literal('auto', 'always', 'never').optional(),
  images: s.union(s.boolean(), s.array(s.string({ min: 1 }))).optional(),
  maxTokensField: s.literal('max_tokens', 'max_completion_tokens').optional(),
  ...PROVIDER_CALL_SHAPE,
});

/** Validates the factory options at once; the error names the field. */
export function validateOptions(options: unknown): OpenAIOptions {
  return validate(schema, options, { plugin: 'openai', code: 'ORYX_E_OPENAI_OPTIONS', example: "openai({ defaultModel: 'gpt-4o-mini' })" });
}

/** Options with the environment applied, as the provider uses them. */
export interface OpenAISettings {
  name: string;
  apiKey?: string;
  baseURL?: string;
  defaultModel?: string;
  headers: Record<string, string>;
  reasoningEcho: 'auto' | 'always' | 'never';
  /** Whether a model takes images. */
  images: (model: string) => boolean;
  maxTokensField: 'max_tokens' | 'max_completion_tokens';
  /** Idle limit: before the answer starts and between two stream chunks. */
  timeoutMs: number;
  /** Cap on one whole call attempt. */
  callTimeoutMs: number;
  retry: RetryPolicy;
}

/** Fills in defaults; the environment is read here (at setup), never at import. */
export function resolveSettings(options: OpenAIOptions, env: NodeJS.ProcessEnv): OpenAISettings {
  const nonEmpty = (v: string | undefined) => (v && v.trim() ? v.trim() : undefined);
  const baseURL = (options.baseURL ?? nonEmpty(env.OPENAI_BASE_URL))?.replace(/\/+$/, '');
  return {
    name: options.name ?? 'openai',
    apiKey: options.apiKey ?? nonEmpty(env.OPENAI_API_KEY),
    baseURL,
    defaultModel: options.defaultModel,
    headers: options.headers ?? {},
    reasoningEcho: options.reasoningEcho ?? 'auto',
    images: modelMatcher(options.images ?? baseURL === undefined),
    maxTokensField: options.maxTokensField ?? (baseURL === undefined ? 'max_completion_tokens' : 'max_tokens'),
    timeoutMs: options.timeoutMs ?? PROVIDER_CALL_DEFAULTS.timeoutMs,
    callTimeoutMs: options.callTimeoutMs ?? PROVIDER_CALL_DEFAULTS.callTimeoutMs,
    retry: retryPolicy(options),
  };
}

