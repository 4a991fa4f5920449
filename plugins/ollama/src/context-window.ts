import type { ChatRequest } from '@oryxos/provider-spec';
import type { OllamaSettings } from './options.ts';

/** How long the model-info lookup may take before it is given up (the call goes on without a cap). */
const SHOW_TIMEOUT_MS = 10_000;

/**
 * The `num_ctx` each call sends, so Ollama does not silently cut prompts to its small default
 * context: the agent's `context_tokens`, capped by the model's own limit when `/api/show`
 * reports one (`<architecture>.context_length`; looked up once per model). An explicit
 * `modelOptions.num_ctx` in the config wins.
 *
 * The kernel's ChatRequest carries no agent settings, so the plugin records them per run from
 * `prepareStep` ({@link remember}), keyed by the run's AbortSignal, which is the request's.
 */
export class ContextWindow {
  private readonly byRun = new WeakMap<AbortSignal, number>();
  private readonly limits = new Map<string, Promise<number | undefined>>();

  constructor(private readonly settings: OllamaSettings) {}

  /** Records the context size of a run whose requests carry `signal`. */
  remember(signal: AbortSignal, contextTokens: number): void {
    this.byRun.set(signal, contextTokens);
  }

  /** The `num_ctx` for a request, or undefined to leave Ollama's own. */
  async numCtx(request: ChatRequest): Promise<number | undefined> {
    if (this.settings.modelOptions?.num_ctx !== undefined) return undefined;
    const wanted = request.signal ? this.byRun.get(request.signal) : undefined;
    if (wanted === undefined) return undefined;
    const limit = await this.modelLimit(request.model, request.signal);
    return limit ? Math.min(wanted, limit) : wanted;
  }

  /** The model's context length as Ollama reports it (once per model), undefined when it does not say. */
  private modelLimit(model: string, signal?: AbortSignal): Promise<number | undefined> {
    let entry = this.limits.get(model);
    if (!entry) {
      entry = this.show(model, signal);
      this.limits.set(model, entry);
    }
    return entry;
  }

  private async show(model: string, signal?: AbortSignal): Promise<number | undefined> {
    try {
      const response = await fetch(`${this.settings.url}/api/show`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...this.settings.headers },
        body: JSON.stringify({ model }),
        signal: AbortSignal.any([AbortSignal.timeout(SHOW_TIMEOUT_MS), ...(signal ? [signal] : [])]),
      });
      if (!response.ok) return undefined;
      const info = ((await response.json()) as { model_info?: Record<string, unknown> }).model_info ?? {};
      const found = Object.entries(info).find(([key, value]) => key.endsWith('.context_length') && typeof value === 'number' && value > 0);
      return found ? (found[1] as number) : undefined;
    } catch {
      // An aborted run may ask again next time; an older Ollama or a proxy simply has no limit to report.
      if (signal?.aborted) this.limits.delete(model);
      return undefined;
    }
  }
}
