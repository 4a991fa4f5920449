import { OryxError, type RetryPolicy } from '@oryxos/provider-spec';
import { shape as s, validateOptions as validate } from '@oryxos/schema-kit';
import { PROVIDER_CALL_DEFAULTS, PROVIDER_CALL_SHAPE, retryPolicy, type ProviderCallOptions } from '@oryxos/provider-kit';

/** Options of {@link anthropic}. Every field is optional; the timeout and retry options are the kernel's shared ones. */
export interface AnthropicOptions extends ProviderCallOptions {
  /** The provider name agents refer to (`provider:` in AGENT.md). Default `anthropic`. */
  name?: string;
  /** API key. Default: the `ANTHROPIC_API_KEY` environment variable, read at setup. */
  apiKey?: string;
  /** Base URL of the API, without `/v1`. Default: `ANTHROPIC_BASE_URL`, else Anthropic's. */
  baseURL?: string;
  /** Model used when the agent names none, e.g. `claude-sonnet-4-5`. */
  defaultModel?: string;
  /** `max_tokens` of every call (the API requires one) unless the run sets a cap. Default 8192. */
  maxTokens?: number;
  /**
   * Extended thinking: `{ budgetTokens }` (`thinking: {type: 'enabled', budget_tokens}`, at
   * least 1024 and below `maxTokens`) or `'adaptive'` (the model decides, on models that take
   * it). Default: off. Thinking blocks come back as reasoning parts and are sent back with
   * their signatures on the tool loop's later requests, as the API requires.
   */
  thinking?: { budgetTokens: number } | 'adaptive';
  /** Prompt caching: `cache_control` breakpoints on the tools, the system prompt and the end of the history. Default true. */
  cache?: boolean;
  /** Beta features to switch on (the `anthropic-beta` header), e.g. `['interleaved-thinking-2025-05-14']`. */
  betas?: string[];
  /** Extra HTTP headers sent with every request. */
  headers?: Record<string, string>;
}

const schema = s.object({
  name: s.string({ pattern: /^[A-Za-z0-9][\w.-]*$/ }).optional(),
  apiKey: s.string({ min: 1 }).optional(),
  baseURL: s.string().refine((url) => URL.canParse(url), 'a URL string').optional(),
  defaultModel: s.string({ min: 1 }).optional(),
  maxTokens: s.integer({ min: 1 }).optional(),
  thinking: s.union(s.literal('adaptive'), s.object({ budgetTokens: s.integer({ min: 1024 }) })).optional(),
  cache: s.boolean().optional(),
  betas: s.array(s.string({ min: 1 })).optional(),
  headers: s.record(s.string()).optional(),
  ...PROVIDER_CALL_SHAPE,
});

const EXAMPLE = "anthropic({ defaultModel: 'claude-sonnet-4-5' })";

/** Validates the factory options at once; the error names the field. */
export function validateOptions(options: unknown): AnthropicOptions {
  const valid = validate(schema, options, { plugin: 'anthropic', code: 'ORYX_E_ANTHROPIC_OPTIONS', example: EXAMPLE }) as AnthropicOptions;
  const budget = typeof valid.thinking === 'object' ? valid.thinking.budgetTokens : undefined;
  if (budget !== undefined && budget >= (valid.maxTokens ?? ANTHROPIC_DEFAULTS.maxTokens)) {
    throw new OryxError('ORYX_E_ANTHROPIC_OPTIONS', `anthropic(): thinking.budgetTokens (${budget}) must be below maxTokens (${valid.maxTokens ?? ANTHROPIC_DEFAULTS.maxTokens})`, {
      hint: 'The thinking budget is part of max_tokens: raise maxTokens in anthropic({...}) above thinking.budgetTokens, or lower the budget.',
      data: { field: 'thinking.budgetTokens' },
    });
  }
  return valid;
}

/** This provider's own defaults. */
export const ANTHROPIC_DEFAULTS = { maxTokens: 8192 } as const;

/** Options with the environment applied, as the provider uses them. */
export interface AnthropicSettings {
  name: string;
  apiKey?: string;
  baseURL?: string;
  defaultModel?: string;
  maxTokens: number;
  thinking?: { budgetTokens: number } | 'adaptive';
  cache: boolean;
  headers: Record<string, string>;
  timeoutMs: number;
  callTimeoutMs: number;
  retry: RetryPolicy;
}

/** Fills in defaults; the environment is read here (at setup), never at import. */
export function resolveSettings(options: AnthropicOptions, env: NodeJS.ProcessEnv): AnthropicSettings {
  const nonEmpty = (v: string | undefined) => (v && v.trim() ? v.trim() : undefined);
  const betas: Record<string, string> = options.betas?.length ? { 'anthropic-beta': options.betas.join(',') } : {};
  return {
    name: options.name ?? 'anthropic',
    apiKey: options.apiKey ?? nonEmpty(env.ANTHROPIC_API_KEY),
    baseURL: (options.baseURL ?? nonEmpty(env.ANTHROPIC_BASE_URL))?.replace(/\/+$/, ''),
    defaultModel: options.defaultModel,
    maxTokens: options.maxTokens ?? ANTHROPIC_DEFAULTS.maxTokens,
    thinking: options.thinking,
    cache: options.cache ?? true,
    headers: { ...betas, ...options.headers },
    timeoutMs: options.timeoutMs ?? PROVIDER_CALL_DEFAULTS.timeoutMs,
    callTimeoutMs: options.callTimeoutMs ?? PROVIDER_CALL_DEFAULTS.callTimeoutMs,
    retry: retryPolicy(options),
  };
}
