// The configuration: options over the standard OTEL_* variables over the defaults, the
// OTLP exporter specification's endpoint rules, and a clear error naming what is wrong.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isOryxError } from '@oryxos/provider-spec';
import { testKernel, scripted } from '@oryxos/kernel/testing';
import otel from '../src/index.ts';
import { resolveOptions } from '../src/options.ts';
import { resolveSettings } from '../src/settings.ts';

const settings = (options: Parameters<typeof resolveOptions>[0], env: Record<string, string> = {}, serving = false) => resolveSettings(resolveOptions(options), env, serving);

function thrown(fn: () => unknown): { code: string; message: string; hint?: string } {
  try { fn(); } catch (error) { if (isOryxError(error)) return { code: error.code, message: error.message, hint: error.hint }; throw error; }
  throw new Error('did not throw');
}

test('defaults: the specification\'s endpoint, protobuf, its queue and batch sizes; a short export timeout for a command, a long one when serving', () => {
  const s = settings({});
  assert.equal([s.enabled, s.url, s.protocol, s.maxQueueSize, s.maxExportBatchSize, s.scheduledDelayMs, s.exportTimeoutMs, s.captureContent, s.maxContentChars],
    [true, 'http://localhost:4318/v1/traces', 'http/protobuf', 2048, 512, 5000, 2000, false, 16384]);
  assert.is(settings({}, {}, true).exportTimeoutMs, 10_000);
});

test('endpoints: a base gets /v1/traces, a signal endpoint is used as it is, options win over variables', () => {
  assert.is(settings({}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel:4318' }).url, 'http://otel:4318/v1/traces');
  assert.is(settings({}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example.com/otlp/' }).url, 'https://otel.example.com/otlp/v1/traces');
  assert.is(settings({}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:9999/custom' }).url, 'http://b:9999/custom');
  assert.is(settings({ endpoint: 'http://c:4318' }, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:9999/custom' }).url, 'http://c:4318/v1/traces');
  assert.is(settings({ tracesEndpoint: 'http://d/x' }, {}).url, 'http://d/x');
});

test('the other variables: protocol, timeout, queue, content capture, headers registered as secrets', () => {
  const s = settings({}, {
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TIMEOUT: '3000', OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '4000',
    OTEL_BSP_MAX_QUEUE_SIZE: '100', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '500', OTEL_BSP_SCHEDULE_DELAY: '0',
    OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'TRUE', OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=abc%20def,x-team=core',
  });
  assert.equal([s.protocol, s.exportTimeoutMs, s.maxQueueSize, s.maxExportBatchSize, s.scheduledDelayMs, s.captureContent], ['http/json', 4000, 100, 100, 0, true]);
  assert.equal(s.secretValues.sort(), ['abc def', 'core']);
  assert.is(settings({ protocol: 'http/protobuf', captureContent: false }, { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json', OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' }).protocol, 'http/protobuf');
});

test('off: enabled false, OTEL_SDK_DISABLED=true (whatever the options say), OTEL_TRACES_EXPORTER=none', () => {
  assert.equal([settings({ enabled: false }).enabled, settings({ enabled: false }).off], [false, 'otel({ enabled: false })']);
  assert.equal(settings({ enabled: true }, { OTEL_SDK_DISABLED: 'true' }).off, 'OTEL_SDK_DISABLED=true');
  assert.equal(settings({}, { OTEL_TRACES_EXPORTER: 'none' }).off, 'OTEL_TRACES_EXPORTER=none');
  assert.is(settings({}, { OTEL_SDK_DISABLED: 'false', OTEL_TRACES_EXPORTER: 'otlp' }).enabled, true);
});

test('bad values are errors that name the variable or option and say what to write', () => {
  const grpc = thrown(() => settings({}, { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }));
  assert.equal([grpc.code, grpc.message], ['ORYX_E_OTEL_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL=grpc: OryxOS exports over OTLP/HTTP, as http/protobuf or http/json']);
  const url = thrown(() => settings({}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'localhost:4318' }));
  assert.equal([url.code, url.message], ['ORYX_E_OTEL_ENDPOINT', 'OTEL_EXPORTER_OTLP_ENDPOINT=localhost:4318 is not an absolute http:// or https:// URL']);
  assert.equal(thrown(() => settings({}, { OTEL_BSP_MAX_QUEUE_SIZE: 'lots' })).message, 'OTEL_BSP_MAX_QUEUE_SIZE=lots must be a whole number of at least 1');
  assert.equal(thrown(() => settings({}, { OTEL_SDK_DISABLED: 'yes' })).message, 'OTEL_SDK_DISABLED=yes must be true or false');
  assert.equal(thrown(() => settings({}, { OTEL_TRACES_EXPORTER: 'zipkin' })).code, 'ORYX_E_OTEL_ENV');
  const typo = thrown(() => otel({ endpont: 'http://x' } as never));
  assert.equal(typo.code, 'ORYX_E_OTEL_OPTIONS');
  assert.match(typo.message, /^otel\(\): option endpont must be removed \(did you mean "endpoint"\?\)/);
  assert.equal(thrown(() => otel({ endpoint: 'otel:4318' })).message, 'otel(): option endpoint must be an absolute http:// or https:// URL (was "otel:4318")');
  assert.equal(thrown(() => otel({ protocol: 'grpc' as never })).code, 'ORYX_E_OTEL_OPTIONS');
  assert.match(thrown(() => otel({ maxQueueSize: 10, maxExportBatchSize: 20 })).message, /maxExportBatchSize \(20\) is above maxQueueSize \(10\)/);
});

test('a bad variable fails the start of a kernel that would trace, naming it; a read-only kernel never reads them', async () => {
  process.env.OTEL_EXPORTER_OTLP_PROTOCOL = 'grpc';
  try {
    const error = await testKernel({ plugins: [scripted([]), otel()] }).then(async (t) => { await t.close(); return undefined; }, (e: unknown) => e);
    assert.ok(isOryxError(error) && error.code === 'ORYX_E_OTEL_PROTOCOL', String(error));
    const reading = await testKernel({ plugins: [scripted([]), otel()], readOnly: true });
    await reading.close();
  } finally {
    delete process.env.OTEL_EXPORTER_OTLP_PROTOCOL;
  }
});

test.run();
