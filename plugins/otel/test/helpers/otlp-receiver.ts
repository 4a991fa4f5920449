/**
 * A loopback OTLP/HTTP collector for the tests: it takes `POST /v1/traces` as `http/protobuf`
 * (decoded with the protobufjs code OpenTelemetry JS generated from the official
 * opentelemetry-proto files, shipped in @opentelemetry/otlp-transformer up to 0.216, installed
 * here as `otlp-transformer-protobufjs`) or `http/json` (the OTLP/JSON mapping of the same
 * messages: hex trace and span ids, enums as numbers, 64-bit integers as strings), and answers
 * as the OTLP/HTTP specification says: 200 with an empty ExportTraceServiceResponse in the
 * request's encoding. Both decode to one shape, so a test reads spans the same way whichever
 * encoding the exporter used.
 */
import { createRequire } from 'node:module';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const require = createRequire(import.meta.url);
// The generated root has no types worth importing: it is read through this narrow view.
interface Decoder { decode(bytes: Uint8Array): unknown; toObject(message: unknown, options: Record<string, unknown>): unknown }
const protoRoot = require('otlp-transformer-protobufjs/build/src/generated/root.js') as {
  opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: Decoder } } } } };
};
const ExportTraceServiceRequest = protoRoot.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

export type Value = string | number | boolean | Value[] | null;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  startMs: number;
  endMs: number;
  attributes: Record<string, Value>;
  events: { name: string; attributes: Record<string, Value> }[];
  links: { traceId: string; spanId: string; attributes: Record<string, Value> }[];
  /** OTLP's StatusCode: 0 unset, 1 ok, 2 error. */
  status: { code: number; message?: string };
  resource: Record<string, Value>;
  scope: { name: string; version?: string };
  schemaUrl?: string;
}

export interface ExportRequest { contentType: string; headers: IncomingHttpHeaders; spans: number }

export interface Receiver {
  /** The base URL, as `OTEL_EXPORTER_OTLP_ENDPOINT` takes it. */
  url: string;
  spans: ReceivedSpan[];
  requests: ExportRequest[];
  /** Resolves once `check` holds of the spans received (polled), or rejects after `timeoutMs`. */
  waitFor(check: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number, what?: string): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

export async function otlpReceiver(): Promise<Receiver> {
  const spans: ReceivedSpan[] = [];
  const requests: ExportRequest[] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const contentType = String(req.headers['content-type'] ?? '');
    if (req.method !== 'POST' || req.url !== '/v1/traces') { res.writeHead(404).end(); return; }
    let decoded: OtlpRequest;
    if (contentType.startsWith('application/x-protobuf')) {
      decoded = ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(body), { longs: String, enums: Number, bytes: String, defaults: false, arrays: true }) as OtlpRequest;
      decoded = hexIds(decoded);
    } else if (contentType.startsWith('application/json')) {
      decoded = JSON.parse(body.toString('utf8')) as OtlpRequest;
    } else {
      res.writeHead(415).end();
      return;
    }
    const got = flatten(decoded);
    spans.push(...got);
    requests.push({ contentType, headers: req.headers, spans: got.length });
    if (contentType.startsWith('application/json')) res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    else res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    requests,
    async waitFor(check, timeoutMs = 10_000, what = 'the spans') {
      const until = Date.now() + timeoutMs;
      while (!check(spans)) {
        if (Date.now() > until) throw new Error(`timed out waiting for ${what}; got ${spans.map((s) => s.name).join(', ') || 'no span'}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return spans;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

// The OTLP message shapes as both decoders give them (only what the tests read).
interface AnyValue { stringValue?: string; boolValue?: boolean; intValue?: string | number; doubleValue?: number; arrayValue?: { values?: AnyValue[] } }
interface KeyValue { key: string; value?: AnyValue }
interface OtlpSpan {
  traceId: string; spanId: string; parentSpanId?: string; name: string; kind?: number;
  startTimeUnixNano: string | number; endTimeUnixNano: string | number; attributes?: KeyValue[];
  events?: { name: string; attributes?: KeyValue[] }[]; links?: { traceId: string; spanId: string; attributes?: KeyValue[] }[];
  status?: { code?: number; message?: string };
}
interface OtlpRequest {
  resourceSpans?: { resource?: { attributes?: KeyValue[] }; schemaUrl?: string; scopeSpans?: { scope?: { name: string; version?: string }; schemaUrl?: string; spans?: OtlpSpan[] }[] }[];
}

/** protobufjs gives `bytes` as base64; OTLP/JSON (and these tests) use lower-case hex. */
function hexIds(request: OtlpRequest): OtlpRequest {
  const hex = (b64?: string) => (b64 ? Buffer.from(b64, 'base64').toString('hex') : '');
  for (const rs of request.resourceSpans ?? []) {
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        s.traceId = hex(s.traceId);
        s.spanId = hex(s.spanId);
        s.parentSpanId = hex(s.parentSpanId);
        for (const l of s.links ?? []) { l.traceId = hex(l.traceId); l.spanId = hex(l.spanId); }
      }
    }
  }
  return request;
}

function value(v: AnyValue | undefined): Value {
  if (!v) return null;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(value);
  return null;
}

const attrs = (list: KeyValue[] | undefined) => Object.fromEntries((list ?? []).map((kv) => [kv.key, value(kv.value)]));

function flatten(request: OtlpRequest): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of request.resourceSpans ?? []) {
    const resource = attrs(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        out.push({
          traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId ?? '', name: s.name, kind: s.kind ?? 0,
          startMs: Number(BigInt(s.startTimeUnixNano) / 1_000_000n), endMs: Number(BigInt(s.endTimeUnixNano) / 1_000_000n),
          attributes: attrs(s.attributes),
          events: (s.events ?? []).map((e) => ({ name: e.name, attributes: attrs(e.attributes) })),
          links: (s.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId, attributes: attrs(l.attributes) })),
          status: { code: s.status?.code ?? 0, ...(s.status?.message ? { message: s.status.message } : {}) },
          resource, scope: { name: ss.scope?.name ?? '', ...(ss.scope?.version ? { version: ss.scope.version } : {}) },
          ...(ss.schemaUrl ? { schemaUrl: ss.schemaUrl } : {}),
        });
      }
    }
  }
  return out;
}
