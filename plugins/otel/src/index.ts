/**
 * @oryxos/plugin-otel: every run, model call and tool call as OpenTelemetry spans with the GenAI
 * semantic conventions, exported over OTLP/HTTP (protobuf or JSON) to any backend, configured the
 * standard way (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_SERVICE_NAME`, …) or with options. The W3C
 * trace context of each call goes on its requests (providers, `http_request`, Streamable HTTP MCP
 * servers), and an incoming one (a REST request's `traceparent`) is continued.
 *
 * Nothing of OpenTelemetry loads until the first run: `oryx --help` and read commands pay for none
 * of it. A collector that is down never slows or fails a run.
 */
import { STAGE, pluginPackage, type Plugin, type PluginContext } from '@oryxos/kernel';
import { errorMessage } from '@oryxos/provider-spec';
import { resolveOptions, type OtelOptions, type ResolvedOtelOptions } from './options.ts';
import type { Tracing } from './runtime.ts';
import type { RunTracer } from './run-tracer.ts';
import { resolveSettings } from './settings.ts';

export { ERROR_CODES } from './errors.ts';
export { SEMCONV_VERSION } from './attributes.ts';
export type { OtelOptions } from './options.ts';
export type { RedactOption } from './content.ts';

/** Taps that start spans run before every other tap of their hook, taps that end them after. */
const FIRST = STAGE.GUARD - 10;
const LAST = STAGE.OBSERVE + 10;
/** What `close` waits beyond the export timeout for the last export. */
const CLOSE_MARGIN_MS = 250;

/**
 * The OpenTelemetry plugin.
 *
 * @example
 * // OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 OTEL_SERVICE_NAME=support-bot oryx run "…"
 * plugins: [openai(), sqlite(), tools(), otel()]
 * // or: otel({ endpoint: 'https://otlp.example.com', headers: { 'x-api-key': env('OTLP_KEY') }, captureContent: true })
 */
export default function otel(raw: OtelOptions = {}): Plugin<ResolvedOtelOptions> {
  const options = resolveOptions(raw);
  return {
    ...pluginPackage(import.meta.url),
    name: 'otel',
    options,
    setup(ctx) {
      // A command that only reads starts no run: nothing to trace, nothing to load.
      if (ctx.readOnly) return;
      const settings = resolveSettings(options, process.env, ctx.serving);
      if (!settings.enabled) {
        ctx.log.debug(`off (${settings.off})`);
        return;
      }
      for (const value of settings.secretValues) ctx.secrets.add(value);
      attach(ctx, () => import('./runtime.ts').then(({ startTracing }) => startTracing(settings, {
        log: ctx.log,
        mask: (text) => ctx.secrets.mask(text),
        ...(options.redact ? { redact: options.redact } : {}),
        serviceVersion: ctx.host?.version ?? ctx.version,
        version: pluginPackage(import.meta.url).version,
        approvals: async (id) => (ctx.hasService('approvals') ? ctx.service('approvals').get(id) : undefined),
      })), settings.exportTimeoutMs + CLOSE_MARGIN_MS);
    },
  };
}

/**
 * Taps every hook the spans need. The pipeline starts with the first run; a tap never throws
 * (tracing must not change what a run does): a failure is logged once and tracing stops.
 */
function attach(ctx: PluginContext<ResolvedOtelOptions>, start: () => Promise<Tracing>, closeMs: number): void {
  let loading: Promise<Tracing | undefined> | undefined;
  let tracing: Tracing | undefined;
  let broken = false;
  const fail = (where: string, error: unknown) => {
    if (broken) return;
    broken = true;
    ctx.log.warn(`tracing stopped after a failure in ${where}: ${errorMessage(error)}; runs go on untraced`);
  };
  const load = () => (loading ??= start().then((t) => (tracing = t), (error) => { fail('start-up', error); return undefined; }));
  /** Runs `fn` on the tracer when there is one; loads it first for `runStart`. */
  const on = async (where: string, fn: (t: RunTracer) => void | Promise<void>, loadIt = false) => {
    if (broken) return;
    const t = tracing ?? (loadIt ? await load() : undefined);
    if (!t) return;
    try { await fn(t.tracer); } catch (error) { fail(where, error); }
  };
  const { hooks } = ctx;
  hooks.runStart.tapPromise({ stage: FIRST }, (run) => on('runStart', (t) => t.runStart(run), true));
  hooks.beforeLLM.tapPromise({ stage: LAST }, (info) => on('beforeLLM', (t) => t.beforeLLM(info)));
  hooks.afterLLM.tapPromise({ stage: LAST }, async (response, info) => { await on('afterLLM', (t) => t.afterLLM(response, info)); return response; });
  hooks.llmError.tapPromise({ stage: LAST }, (error, info) => on('llmError', (t) => t.llmError(error, info)));
  hooks.beforeTool.tapPromise({ stage: FIRST }, async (info) => { await on('beforeTool', (t) => t.toolStart(info)); return undefined; });
  hooks.beforeTool.tapPromise({ stage: LAST }, async (info) => { await on('beforeTool', (t) => t.toolPassed(info)); return undefined; });
  hooks.afterTool.tapPromise({ stage: LAST }, async (result, info) => { await on('afterTool', (t) => t.afterTool(result, info)); return result; });
  hooks.afterRun.tapPromise({ stage: LAST }, (result, run) => on('afterRun', (t) => t.afterRun(result, run)));
  hooks.close.tapPromise(async () => {
    const t = await loading;
    await t?.close(closeMs).catch((error) => ctx.log.warn(`could not flush the last spans: ${errorMessage(error)}`));
  });
}
