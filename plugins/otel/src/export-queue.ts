/**
 * The span processor between the tracer and the OTLP exporter: ended spans go into a bounded
 * queue and leave in batches, one export at a time, from a timer. Nothing a run does waits for
 * the collector: `onEnd` is an array push (or, with the queue full, a counted drop), and an
 * export that fails or hangs only holds the next batch back. What the SDK's BatchSpanProcessor
 * does, with the drops and failures counted and reported once (it only tells OpenTelemetry's
 * diagnostic logger), and a flush whose wait is bounded.
 */
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { TraceFlags } from '@opentelemetry/api';
import type { ReadableSpan, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';

export interface QueueLimits {
  maxQueueSize: number;
  maxExportBatchSize: number;
  scheduledDelayMs: number;
  /** One export's time (the exporter's own timeout, its retries included); past it (and a second more) the batch counts as failed. */
  exportTimeoutMs: number;
}

/** What the queue tells about trouble: the first of each kind, and the way back. */
export interface QueueReporter {
  /** The queue was full and a span was dropped (the first one since the queue last had room). */
  full(limit: number): void;
  /** An export failed after a success (or first): once per outage. */
  failed(spans: number, error: string): void;
  /** An export worked again after failures. */
  recovered(lostSpans: number): void;
}

/** Counts since start. */
export interface QueueStats {
  exported: number;
  dropped: number;
  failedSpans: number;
  failedExports: number;
  queued: number;
  /** In the export on its way now. */
  sending: number;
}

export class ExportQueue implements SpanProcessor {
  private readonly queue: ReadableSpan[] = [];
  private timer?: NodeJS.Timeout;
  private exporting?: Promise<void>;
  private closed = false;
  private full = false;
  private failing = false;
  private lostInOutage = 0;
  readonly stats: QueueStats = { exported: 0, dropped: 0, failedSpans: 0, failedExports: 0, queued: 0, sending: 0 };

  constructor(private readonly exporter: SpanExporter, private readonly limits: QueueLimits, private readonly report: QueueReporter) {}

  onStart(): void {}

  onEnd(span: ReadableSpan): void {
    if (this.closed || (span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) return;
    if (this.queue.length >= this.limits.maxQueueSize) {
      this.stats.dropped++;
      if (!this.full) { this.full = true; this.report.full(this.limits.maxQueueSize); }
      return;
    }
    this.full = false;
    this.queue.push(span);
    this.stats.queued = this.queue.length;
    if (this.queue.length >= this.limits.maxExportBatchSize) this.send();
    else this.schedule();
  }

  /** Exports everything queued, waiting at most `timeoutMs` (resolves either way; what is left stays queued). */
  async flush(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<void>((resolve) => { timer = setTimeout(resolve, timeoutMs); timer.unref(); });
    const all = (async () => {
      while (this.queue.length || this.exporting) {
        this.send();
        await this.exporting;
      }
    })();
    await Promise.race([all, gaveUp]);
    clearTimeout(timer);
  }

  forceFlush(): Promise<void> {
    return this.flush(this.limits.exportTimeoutMs);
  }

  /** Stops taking spans, exports what is queued within `timeoutMs`, shuts the exporter down. */
  async close(timeoutMs: number): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    const started = Date.now();
    await this.flush(timeoutMs);
    const left = Math.max(0, timeoutMs - (Date.now() - started));
    await Promise.race([this.exporter.shutdown().catch(() => {}), new Promise((resolve) => setTimeout(resolve, left).unref())]);
  }

  shutdown(): Promise<void> {
    return this.close(this.limits.exportTimeoutMs);
  }

  private schedule(): void {
    if (this.timer || this.exporting || this.closed) return;
    this.timer = setTimeout(() => { this.timer = undefined; this.send(); }, this.limits.scheduledDelayMs);
    // A pending batch never keeps a process alive: `close` sends what is left.
    this.timer.unref();
  }

  /** Starts exporting the next batch, unless one is on its way. */
  private send(): void {
    if (this.exporting || !this.queue.length) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.queue.splice(0, this.limits.maxExportBatchSize);
    this.stats.queued = this.queue.length;
    this.stats.sending = batch.length;
    this.exporting = this.export(batch).finally(() => {
      this.exporting = undefined;
      this.stats.sending = 0;
      if (this.queue.length >= this.limits.maxExportBatchSize) this.send();
      else if (this.queue.length) this.schedule();
    });
  }

  private async export(batch: ReadableSpan[]): Promise<void> {
    const result = await new Promise<ExportResult>((resolve) => {
      // The exporter bounds its own time; this is in case it never calls back.
      const guard = setTimeout(() => resolve({ code: ExportResultCode.FAILED, error: new Error(`no answer within ${this.limits.exportTimeoutMs} ms`) }), this.limits.exportTimeoutMs + 1000);
      guard.unref();
      try {
        this.exporter.export(batch, (r) => { clearTimeout(guard); resolve(r); });
      } catch (error) {
        clearTimeout(guard);
        resolve({ code: ExportResultCode.FAILED, error: error as Error });
      }
    });
    if (result.code === ExportResultCode.SUCCESS) {
      this.stats.exported += batch.length;
      if (this.failing) { this.failing = false; this.report.recovered(this.lostInOutage); this.lostInOutage = 0; }
      return;
    }
    this.stats.failedExports++;
    this.stats.failedSpans += batch.length;
    this.lostInOutage += batch.length;
    if (!this.failing) { this.failing = true; this.report.failed(batch.length, describe(result.error)); }
  }
}

/** An export error in one line: the network error's code, or the HTTP status and message. */
function describe(error: Error | undefined): string {
  if (!error) return 'the export failed';
  const e = error as Error & { code?: unknown; data?: unknown; cause?: { code?: string } };
  const code = typeof e.code === 'string' ? e.code : typeof e.code === 'number' ? `HTTP ${e.code}` : e.cause?.code;
  const message = error.message || (typeof e.data === 'string' ? e.data.slice(0, 200) : '');
  return code && !message.includes(String(code)) ? `${code}${message ? `: ${message}` : ''}` : message || String(code ?? 'the export failed');
}
