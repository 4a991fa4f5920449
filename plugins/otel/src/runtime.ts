/**
 * What the plugin loads with the first run (never for `oryx --help` or a read command): the
 * OpenTelemetry SDK, the OTLP/HTTP exporter of the chosen encoding, the bounded export queue and
 * the tracer the hooks drive.
 */
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Logger } from '@oryxos/kernel';
import { SCHEMA_URL } from './attributes.ts';
import { ContentRecorder, type RedactOption } from './content.ts';
import { ExportQueue, type QueueStats } from './export-queue.ts';
import { RunTracer, type ApprovalLookup } from './run-tracer.ts';
import type { OtelSettings } from './settings.ts';

export interface TracingDeps {
  log: Logger;
  /** The kernel's secrets masking. */
  mask(text: string): string;
  redact?: RedactOption;
  /** `service.version`: the CLI's version, else the kernel's. */
  serviceVersion: string;
  /** The plugin's own version, for the instrumentation scope. */
  version: string;
  approvals: ApprovalLookup;
}

/** A started tracing pipeline. */
export interface Tracing {
  tracer: RunTracer;
  stats(): QueueStats;
  /** Exports what is queued within `timeoutMs` and stops; logs once what could not be sent. */
  close(timeoutMs: number): Promise<void>;
}

export async function startTracing(settings: OtelSettings, deps: TracingDeps): Promise<Tracing> {
  const exporter = await createExporter(settings);
  const where = settings.url;
  const queue = new ExportQueue(exporter, settings, {
    full: (limit) => deps.log.warn(`ORYX_E_OTEL_QUEUE_FULL: ${limit} spans wait for export (otel maxQueueSize); spans are dropped until ${where} takes them (the count is logged at close)`),
    failed: (spans, error) => deps.log.warn(`ORYX_E_OTEL_EXPORT: could not export ${spans} spans to ${where}: ${deps.mask(error)}; runs go on, and this is not logged again until an export works`),
    recovered: (lost) => deps.log.info(`exports to ${where} work again (${lost} spans were lost meanwhile)`),
  });
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'oryxos', 'service.version': deps.serviceVersion }))
    .merge(detectResources({ detectors: [envDetector] }))
    .merge(resourceFromAttributes({ ...settings.resourceAttributes, ...(settings.serviceName ? { 'service.name': settings.serviceName } : {}) }));
  // Not registered globally: a program that embeds OryxOS keeps its own tracer provider.
  const provider = new BasicTracerProvider({ resource, spanProcessors: [queue] });
  const tracer = provider.getTracer('@oryxos/plugin-otel', deps.version, { schemaUrl: SCHEMA_URL });
  const content = settings.captureContent ? new ContentRecorder(deps.mask, deps.redact, settings.maxContentChars) : undefined;
  const runTracer = new RunTracer(tracer, new W3CTraceContextPropagator(), { content, mask: deps.mask, approvals: deps.approvals, log: deps.log });
  return {
    tracer: runTracer,
    stats: () => ({ ...queue.stats }),
    async close(timeoutMs) {
      runTracer.endAll();
      await queue.close(timeoutMs);
      const s = queue.stats;
      const unsent = s.queued + s.sending;
      const lost = s.dropped + s.failedSpans + unsent;
      if (lost) {
        deps.log.warn(`${s.dropped ? 'ORYX_E_OTEL_QUEUE_FULL' : 'ORYX_E_OTEL_EXPORT'}: ${lost} spans were not exported to ${where} `
          + `(${s.dropped} dropped with the queue full, ${s.failedSpans} in failed exports, ${unsent} unsent at close); ${s.exported} were`);
      }
    },
  };
}

/** The OTLP/HTTP exporter of the configured encoding; the endpoint's certificates and compression come from its OTEL_* variables. */
async function createExporter(settings: OtelSettings): Promise<SpanExporter> {
  const config = { url: settings.url, headers: settings.headers, timeoutMillis: settings.exportTimeoutMs };
  if (settings.protocol === 'http/json') {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    return new OTLPTraceExporter(config);
  }
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-proto');
  return new OTLPTraceExporter(config);
}
