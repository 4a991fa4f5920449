import { otelError } from './errors.ts';
import { isHttpUrl, PROTOCOLS, type Protocol, type ResolvedOtelOptions } from './options.ts';

/** What the plugin runs with: the options over the standard `OTEL_*` variables over the defaults. */
export interface OtelSettings {
  /** False when `enabled: false`, `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`; `off` says which. */
  enabled: boolean;
  off?: string;
  protocol: Protocol;
  /** Where traces are posted. */
  url: string;
  /** Headers of the options (the exporter adds those of `OTEL_EXPORTER_OTLP_[TRACES_]HEADERS`). */
  headers: Record<string, string>;
  /** Values of every export header (options and environment), to mask as secrets. */
  secretValues: string[];
  exportTimeoutMs: number;
  maxQueueSize: number;
  maxExportBatchSize: number;
  scheduledDelayMs: number;
  captureContent: boolean;
  maxContentChars: number;
  /** The options' `service.name`, when given (else `OTEL_SERVICE_NAME`, else `oryxos`). */
  serviceName?: string;
  resourceAttributes: Record<string, string | number | boolean>;
}

/** The OTLP/HTTP port and path of the specification's default endpoint. */
export const DEFAULT_ENDPOINT = 'http://localhost:4318';
export const TRACES_PATH = 'v1/traces';

type Env = Record<string, string | undefined>;

/**
 * The settings for these options in this environment. `serving` is the host's
 * (`oryx web`): a command that runs and exits gets a short export timeout, so a collector that
 * is down delays its exit by that at most.
 *
 * @example
 * resolveSettings(resolveOptions({}), { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel:4318' }, false).url // 'http://otel:4318/v1/traces'
 */
export function resolveSettings(o: ResolvedOtelOptions, env: Env, serving: boolean): OtelSettings {
  const read = (name: string) => { const v = env[name]?.trim(); return v === '' ? undefined : v; };
  const off = o.enabled === false ? 'otel({ enabled: false })'
    : bool(read, 'OTEL_SDK_DISABLED') ? 'OTEL_SDK_DISABLED=true'
      : exporterOff(read) ? 'OTEL_TRACES_EXPORTER=none' : undefined;
  const envHeaders = { ...keyPairs(read, 'OTEL_EXPORTER_OTLP_HEADERS'), ...keyPairs(read, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS') };
  const maxQueueSize = o.maxQueueSize ?? int(read, 'OTEL_BSP_MAX_QUEUE_SIZE', 1) ?? 2048;
  const maxExportBatchSize = Math.min(maxQueueSize, o.maxExportBatchSize ?? int(read, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 1) ?? 512);
  return {
    enabled: off === undefined,
    ...(off ? { off } : {}),
    protocol: protocolOf(o, read),
    url: tracesUrl(o, read),
    headers: o.headers,
    secretValues: [...Object.values(envHeaders), ...Object.values(o.headers)],
    exportTimeoutMs: o.exportTimeoutMs ?? int(read, 'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT', 1) ?? int(read, 'OTEL_EXPORTER_OTLP_TIMEOUT', 1) ?? (serving ? 10_000 : 2_000),
    maxQueueSize,
    maxExportBatchSize,
    scheduledDelayMs: o.scheduledDelayMs ?? int(read, 'OTEL_BSP_SCHEDULE_DELAY', 0) ?? 5_000,
    captureContent: o.captureContent ?? bool(read, 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT') ?? false,
    maxContentChars: o.maxContentChars ?? 16_384,
    ...(o.serviceName ? { serviceName: o.serviceName } : {}),
    resourceAttributes: o.resourceAttributes,
  };
}

function protocolOf(o: ResolvedOtelOptions, read: (name: string) => string | undefined): Protocol {
  if (o.protocol) return o.protocol;
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const value = read(name);
    if (value === undefined) continue;
    if ((PROTOCOLS as readonly string[]).includes(value)) return value as Protocol;
    throw otelError('ORYX_E_OTEL_PROTOCOL', `${name}=${value}: OryxOS exports over OTLP/HTTP, as ${PROTOCOLS.join(' or ')}`, { data: { variable: name, value } });
  }
  return 'http/protobuf';
}

/** The traces URL: a signal endpoint as it is; a base endpoint with `/v1/traces` added (OTLP exporter specification). */
function tracesUrl(o: ResolvedOtelOptions, read: (name: string) => string | undefined): string {
  if (o.tracesEndpoint) return o.tracesEndpoint;
  if (o.endpoint) return withPath(o.endpoint);
  const specific = read('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  if (specific !== undefined) return checkedUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', specific);
  const base = read('OTEL_EXPORTER_OTLP_ENDPOINT');
  if (base !== undefined) return withPath(checkedUrl('OTEL_EXPORTER_OTLP_ENDPOINT', base));
  return withPath(DEFAULT_ENDPOINT);
}

const withPath = (base: string) => `${base.endsWith('/') ? base : `${base}/`}${TRACES_PATH}`;

function checkedUrl(name: string, value: string): string {
  if (isHttpUrl(value)) return value;
  throw otelError('ORYX_E_OTEL_ENDPOINT', `${name}=${value} is not an absolute http:// or https:// URL`, { data: { variable: name, value } });
}

function exporterOff(read: (name: string) => string | undefined): boolean {
  const value = read('OTEL_TRACES_EXPORTER');
  if (value === undefined) return false;
  const names = value.split(',').map((v) => v.trim().toLowerCase()).filter(Boolean);
  const unknown = names.filter((n) => n !== 'otlp' && n !== 'none');
  if (unknown.length) {
    throw otelError('ORYX_E_OTEL_ENV', `OTEL_TRACES_EXPORTER=${value}: this plugin exports with otlp (or none, to send nothing), not ${unknown.join(', ')}`, {
      hint: 'Set OTEL_TRACES_EXPORTER=otlp (the default) or none, or unset it.', data: { variable: 'OTEL_TRACES_EXPORTER', value },
    });
  }
  return !names.includes('otlp');
}

function bool(read: (name: string) => string | undefined, name: string): boolean | undefined {
  const value = read(name)?.toLowerCase();
  if (value === undefined) return undefined;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw otelError('ORYX_E_OTEL_ENV', `${name}=${read(name)} must be true or false`, { data: { variable: name, value: read(name) } });
}

function int(read: (name: string) => string | undefined, name: string, min: number): number | undefined {
  const value = read(name);
  if (value === undefined) return undefined;
  const n = Number(value);
  if (Number.isInteger(n) && n >= min) return n;
  throw otelError('ORYX_E_OTEL_ENV', `${name}=${value} must be a whole number of at least ${min}`, { data: { variable: name, value } });
}

/** `key1=value1,key2=value2` with URL-encoded values (the specification's format for headers). */
function keyPairs(read: (name: string) => string | undefined, name: string): Record<string, string> {
  const value = read(name);
  const out: Record<string, string> = {};
  for (const pair of value?.split(',') ?? []) {
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    try { out[pair.slice(0, eq).trim()] = decodeURIComponent(pair.slice(eq + 1).trim()); } catch { out[pair.slice(0, eq).trim()] = pair.slice(eq + 1).trim(); }
  }
  return out;
}
