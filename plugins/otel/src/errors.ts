import { OryxError } from '@oryxos/provider-spec';

/**
 * Every error code this package raises or logs, with how to fix it. `test/error-codes.test.ts`
 * checks this table against README.md so the two never drift.
 *
 * A collector that is down or slow never fails a run: its codes are logged (once each), and the
 * run goes on without waiting.
 */
export const ERROR_CODES = {
  ORYX_E_OTEL_OPTIONS: 'Fix the otel() option the message names in oryx.config.ts; see the option table in the @oryxos/plugin-otel README.',
  ORYX_E_OTEL_ENV: 'Fix the OTEL_* environment variable the message names (its value is shown), or unset it to use the default.',
  ORYX_E_OTEL_ENDPOINT: 'Give an absolute http:// or https:// URL: otel({ endpoint }) or OTEL_EXPORTER_OTLP_ENDPOINT (the base, /v1/traces is added), or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (used as it is).',
  ORYX_E_OTEL_PROTOCOL: 'OryxOS exports over OTLP/HTTP: set OTEL_EXPORTER_OTLP_PROTOCOL (or otel({ protocol })) to http/protobuf (the default) or http/json; for gRPC, put an OpenTelemetry Collector in between.',
  ORYX_E_OTEL_EXPORT: 'The collector refused or did not answer an export (logged once; the run went on): check that it listens at the URL the message names, and the headers it needs (OTEL_EXPORTER_OTLP_HEADERS).',
  ORYX_E_OTEL_QUEUE_FULL: 'Spans ended faster than the collector took them, and the ones over maxQueueSize were dropped (logged once, with the count at close): make the collector reachable, or raise otel({ maxQueueSize }) / OTEL_BSP_MAX_QUEUE_SIZE.',
} as const;

export type OtelErrorCode = keyof typeof ERROR_CODES;

/** An OryxError with one of this package's codes; the hint defaults to the table's. */
export function otelError(code: OtelErrorCode, message: string, options: { hint?: string; cause?: unknown; data?: Record<string, unknown> } = {}): OryxError {
  return new OryxError(code, message, { ...options, hint: options.hint ?? ERROR_CODES[code] });
}
