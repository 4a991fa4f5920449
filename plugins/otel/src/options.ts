import { shape as s, validateOptions } from '@oryxos/schema-kit';
import type { RedactOption } from './content.ts';
import { otelError } from './errors.ts';

/** The OTLP/HTTP encodings this plugin exports with. */
export const PROTOCOLS = ['http/protobuf', 'http/json'] as const;
export type Protocol = (typeof PROTOCOLS)[number];

/**
 * Options of {@link otel}. Each one, when given, wins over its `OTEL_*` variable (as in every
 * OpenTelemetry SDK); `OTEL_SDK_DISABLED=true` turns the plugin off whatever they say.
 */
export interface OtelOptions {
  /** `false` turns the plugin off (nothing loads, nothing is sent). Default true. */
  enabled?: boolean;
  /** The collector's base URL, as `OTEL_EXPORTER_OTLP_ENDPOINT`: `/v1/traces` is added. Default `http://localhost:4318`. */
  endpoint?: string;
  /** The full URL traces are posted to, as `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (nothing is added). */
  tracesEndpoint?: string;
  /** `http/protobuf` (default) or `http/json`, as `OTEL_EXPORTER_OTLP_PROTOCOL`. */
  protocol?: Protocol;
  /** Headers of every export (an API key), added to `OTEL_EXPORTER_OTLP_HEADERS`. Their values are masked as secrets. */
  headers?: Record<string, string>;
  /** `service.name` of the resource, as `OTEL_SERVICE_NAME`. Default `oryxos`. */
  serviceName?: string;
  /** More resource attributes, over `OTEL_RESOURCE_ATTRIBUTES`: `{ 'deployment.environment.name': 'prod' }`. */
  resourceAttributes?: Record<string, string | number | boolean>;
  /**
   * Record message content: prompts, answers, tool arguments and results (`gen_ai.input.messages`,
   * `gen_ai.output.messages`, `gen_ai.system_instructions`, `gen_ai.tool.call.arguments`,
   * `gen_ai.tool.call.result`), with every registered secret masked and the audit's redaction
   * applied. Default false, or `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`.
   */
  captureContent?: boolean;
  /**
   * More redaction of captured content, after the secrets masking: patterns (a string is a
   * literal) each replaced by `[REDACTED]`, or a function of the text.
   */
  redact?: RedactOption;
  /** Characters of one content attribute at most (the rest is cut, with a marker). Default 16384. */
  maxContentChars?: number;
  /** Spans waiting for export at most; more are dropped and counted. Default 2048 (`OTEL_BSP_MAX_QUEUE_SIZE`). */
  maxQueueSize?: number;
  /** Spans of one export at most. Default 512 (`OTEL_BSP_MAX_EXPORT_BATCH_SIZE`). */
  maxExportBatchSize?: number;
  /** How long ended spans wait to go out together. Default 5000 ms (`OTEL_BSP_SCHEDULE_DELAY`). */
  scheduledDelayMs?: number;
  /**
   * Time for one export, its retries included (`OTEL_EXPORTER_OTLP_TRACES_TIMEOUT`,
   * `OTEL_EXPORTER_OTLP_TIMEOUT`). Default 10000 ms when serving (`oryx web`), 2000 ms for a
   * command that runs and exits (`oryx run`): how much later at most it exits when the collector is down.
   */
  exportTimeoutMs?: number;
}

export interface ResolvedOtelOptions extends Omit<OtelOptions, 'headers' | 'resourceAttributes'> {
  headers: Record<string, string>;
  resourceAttributes: Record<string, string | number | boolean>;
}

const atLeast = (min: number) => s.integer({ min }).optional();
const url = s.string({ min: 1 }).optional();
const shape = s.object({
  enabled: s.boolean().optional(),
  endpoint: url,
  tracesEndpoint: url,
  protocol: s.literal(...PROTOCOLS).optional(),
  headers: s.record(s.string()).optional(),
  serviceName: s.string({ min: 1 }).optional(),
  resourceAttributes: s.record(s.union(s.string(), s.number(), s.boolean())).optional(),
  captureContent: s.boolean().optional(),
  redact: s.union(
    s.array(s.custom<string | RegExp>('a string or a RegExp', (v) => typeof v === 'string' || v instanceof RegExp)),
    s.custom<(text: string) => string>('a function', (v) => typeof v === 'function'),
  ).optional(),
  maxContentChars: atLeast(100),
  maxQueueSize: atLeast(1),
  maxExportBatchSize: atLeast(1),
  scheduledDelayMs: atLeast(0),
  exportTimeoutMs: atLeast(1),
});

/** Validates the factory's options at once; the error names the field and how to fix it. */
export function resolveOptions(raw: unknown): ResolvedOtelOptions {
  const o: OtelOptions = validateOptions(shape, raw, { plugin: 'otel', code: 'ORYX_E_OTEL_OPTIONS', example: "otel({ endpoint: 'http://localhost:4318' })" });
  for (const field of ['endpoint', 'tracesEndpoint'] as const) {
    const value = o[field];
    if (value !== undefined && !isHttpUrl(value)) {
      throw otelError('ORYX_E_OTEL_OPTIONS', `otel(): option ${field} must be an absolute http:// or https:// URL (was ${JSON.stringify(value)})`, {
        hint: `Write otel({ ${field}: 'http://localhost:4318${field === 'endpoint' ? '' : '/v1/traces'}' }).`, data: { field },
      });
    }
  }
  if (o.maxQueueSize !== undefined && o.maxExportBatchSize !== undefined && o.maxExportBatchSize > o.maxQueueSize) {
    throw otelError('ORYX_E_OTEL_OPTIONS', `otel(): option maxExportBatchSize (${o.maxExportBatchSize}) is above maxQueueSize (${o.maxQueueSize})`, {
      hint: 'Lower maxExportBatchSize or raise maxQueueSize in otel({...}).', data: { field: 'maxExportBatchSize' },
    });
  }
  return { ...o, headers: o.headers ?? {}, resourceAttributes: o.resourceAttributes ?? {} };
}

/** An absolute http(s) URL. */
export function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}
