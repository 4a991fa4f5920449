import { shape as s, validateOptions as validate } from '@oryxos/schema-kit';
import type { RetryPolicy } from '@oryxos/provider-spec';
import { PROVIDER_CALL_DEFAULTS, PROVIDER_CALL_SHAPE, retryPolicy, type ProviderCallOptions } from '@oryxos/provider-kit';

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
}

const schema = s.object({
  name: s.string({ pattern: /^[A-Za-z0-9][\w.-]*$/ }).optional(),
  apiKey: s.string({ min: 1 }).optional(),
  baseURL: s.string().refine((url) => URL.canParse(url), 'a URL string').optional(),
  defaultModel: s.string({ min: 1 }).optional(),
  headers: s.record(s.string()).optional(),
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
  /** Idle limit: before the answer starts and between two stream chunks. */
  timeoutMs: number;
  /** Cap on one whole call attempt. */
  callTimeoutMs: number;
  retry: RetryPolicy;
}

/** Fills in defaults; the environment is read here (at setup), never at import. */
export function resolveSettings(options: OpenAIOptions, env: NodeJS.ProcessEnv): OpenAISettings {
  const nonEmpty = (v: string | undefined) => (v && v.trim() ? v.trim() : undefined);
  return {
    name: options.name ?? 'openai',
    apiKey: options.apiKey ?? nonEmpty(env.OPENAI_API_KEY),
    baseURL: (options.baseURL ?? nonEmpty(env.OPENAI_BASE_URL))?.replace(/\/+$/, ''),
    defaultModel: options.defaultModel,
    headers: options.headers ?? {},
    timeoutMs: options.timeoutMs ?? PROVIDER_CALL_DEFAULTS.timeoutMs,
    callTimeoutMs: options.callTimeoutMs ?? PROVIDER_CALL_DEFAULTS.callTimeoutMs,
    retry: retryPolicy(options),
  };
}
