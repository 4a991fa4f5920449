import { errorMessage, type ChatResponse, type OryxError } from '@oryxos/provider-spec';
import type { Database, SandboxEvent, SqlValue } from '@oryxos/contracts';
import type { LLMCallInfo, Logger, PromptReport, ToolResult, ToolResultInfo } from '@oryxos/kernel';
import type { Redactor } from './redact.ts';

export interface RecorderOptions {
  redact: Redactor;
  maxOutputChars: number;
  maxInputChars: number;
}

const LLM_INSERT = `INSERT INTO llm_calls (session_id, run_id, agent, iteration, attempt, provider, model, input_tokens, output_tokens,
  latency_ms, finish_reason, status, error_code, error, retried, created_at, prompt_report, cache_read_tokens, cache_write_tokens)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/** The prompt report in its compact stored form: `{in: [[section, chars]], cut: [[section, chars, reason]], tokens}`. */
export function compactPromptReport(report: PromptReport | undefined): string | null {
  if (!report) return null;
  return JSON.stringify({
    in: report.injected.map((i) => [i.section, i.chars]),
    cut: report.cut.map((c) => [c.section, c.chars, c.reason]),
    tokens: report.estimatedTokens,
  });
}

const TOOL_INSERT = `INSERT INTO tool_invocations (session_id, run_id, agent, iteration, tool_call_id, tool, source, input, input_chars,
  output, output_chars, status, denied_reason, retryable, duration_ms, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

const SANDBOX_INSERT = `INSERT INTO sandbox_events (decision, kind, target, reason, origin, agent, session_id, run_id, tool_call_id, pid,
  process, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/**
 * Writes audit rows. A failed write is logged (ORYX_E_AUDIT_WRITE) and swallowed: the run
 * matters more than its audit row. On SQLite a row commits with the session's next message.
 *
 * @example
 * const recorder = new AuditRecorder(() => kernel.service('database'), { redact: createRedactor(), maxOutputChars: 8192, maxInputChars: 32768 }, kernel.log);
 * await recorder.tool(result, info);
 */
export class AuditRecorder {
  constructor(private readonly db: () => Pick<Database, 'execute' | 'defer'>, private readonly options: RecorderOptions, private readonly log: Logger) {}

  /** One successful model call (afterLLM). */
  async llmOk(response: ChatResponse, info: LLMCallInfo): Promise<void> {
    const { run } = info;
    await this.write('llm_calls', LLM_INSERT, [
      run.sessionId, run.runId, run.agent.name, run.iteration, info.attempt, run.provider, response.model || info.request.model,
      response.usage?.inputTokens ?? null, response.usage?.outputTokens ?? null, info.latencyMs, response.finishReason ?? null,
      'ok', null, null, null, new Date().toISOString(), compactPromptReport(info.prompt),
      response.usage?.cacheReadTokens ?? null, response.usage?.cacheWriteTokens ?? null,
    ]);
  }

  /** One failed model attempt (llmError), retried or final. */
  async llmError(error: OryxError, info: LLMCallInfo & { willRetry: boolean }): Promise<void> {
    const { run } = info;
    await this.write('llm_calls', LLM_INSERT, [
      run.sessionId, run.runId, run.agent.name, run.iteration, info.attempt, run.provider, info.request.model,
      null, null, info.latencyMs, null, 'error', error.code ?? null, await this.options.redact(errorMessage(error)), info.willRetry ? 1 : 0,
      new Date().toISOString(), compactPromptReport(info.prompt), null, null,
    ]);
  }

  /**
   * One finished tool call (afterTool): ok, error or denied. `output_chars` is the size of the
   * result before the kernel's output cap (`fullChars`), when it cut one.
   */
  async tool(result: ToolResult, info: ToolResultInfo): Promise<void> {
    const { run, call } = info;
    const input = call.argsError ?? JSON.stringify(call.args ?? {});
    const content = typeof result.content === 'string' ? result.content : JSON.stringify(result.content);
    const denied = info.status === 'denied';
    const [keptInput, keptOutput, reason] = await this.capped([
      [input, this.options.maxInputChars], [content, this.options.maxOutputChars], ...(denied ? [[result.denied ?? '', Infinity] as const] : []),
    ]);
    await this.write('tool_invocations', TOOL_INSERT, [
      run.sessionId, run.runId, run.agent.name, run.iteration, call.id, call.name,
      // an unknown tool has no source: NULL rather than a guess
      info.tool?.source ?? null,
      keptInput!, input.length, keptOutput!, result.fullChars ?? content.length,
      info.status, denied ? reason! : null,
      result.retryable ? 1 : 0, info.durationMs, new Date().toISOString(),
    ]);
  }

  /** One sandbox decision that is not a tool call: a denial (MCP start, scheduler action, redirect hop) or a confined connection. */
  async sandboxEvent(e: SandboxEvent): Promise<void> {
    const redact = async (text: string | undefined) => (text === undefined ? null : this.options.redact(text));
    await this.write('sandbox_events', SANDBOX_INSERT, [
      e.decision, e.kind, await redact(e.target), await redact(e.reason), e.origin ?? null, e.agent ?? null, e.sessionId ?? null, e.runId ?? null,
      e.toolCallId ?? null, e.pid ?? null, await redact(e.process), new Date().toISOString(),
    ]);
  }

  /** Each text's first `max` characters, redacted together (only what is kept, plus a margin, is scanned). */
  private async capped(texts: (readonly [string, number])[]): Promise<string[]> {
    const { redact } = this.options;
    const scanned = texts.map(([text, max]) => (text.length > max + MARGIN ? text.slice(0, max + MARGIN) : text));
    const redacted = redact.all ? await redact.all(scanned) : await Promise.all(scanned.map((text) => redact(text)));
    return redacted.map((text, i) => (text.length > texts[i]![1] ? text.slice(0, texts[i]![1]) : text));
  }

  /**
   * A database that can defer a write (`Database.defer`: the sqlite plugin's can) commits the row
   * with the next transaction — the session message that follows the model or tool call —
   * instead of in one of its own; any other database writes it at once.
   */
  private async write(table: string, sql: string, params: SqlValue[]): Promise<void> {
    const warn = (error: unknown) => this.log.warn(`ORYX_E_AUDIT_WRITE could not write a ${table} row (the run goes on): ${errorMessage(error)}`);
    const db = this.db();
    try {
      if (db.defer) db.defer(sql, params, warn);
      else await db.execute(sql, params);
    } catch (error) {
      warn(error);
    }
  }
}

/** Room past the cap that is redacted too, so a secret cut at the cap is still found whole. */
const MARGIN = 512;
