import { Flags } from '@oclif/core';
import type { Message } from '@oryxos/provider-spec';
import { OryxCommand, table, camelKeys, listJson, type CamelKeys, type ListJson } from '@oryxos/command-kit';
import { filterFlags, shortId, shortTime } from '../../flags.ts';
import { auditError } from '../../errors.ts';
import type { CallMessages } from '../../call-messages.ts';
import type { AuditOptions } from '../../options.ts';
import { getLlmCall, listLlmCalls, promptReportOf, type LlmCallRow, type PromptReportRow } from '../../queries.ts';

export default class AuditLlm extends OryxCommand {
  static override readOnly = true;
  static override summary = 'List model calls (llm_calls): tokens (cached: served from the provider\'s prompt cache), latency, failures and retries.';
  static override examples = [
    '<%= config.bin %> audit llm',
    '<%= config.bin %> audit llm --status error --limit 20',
    '<%= config.bin %> audit llm --session 3f2a9c1e --json',
    '<%= config.bin %> audit llm --show 42',
  ];
  static override enableJsonFlag = true;
  static override flags = {
    ...filterFlags,
    status: Flags.string({ summary: 'Only calls with this status.', options: ['ok', 'error'] }),
    show: Flags.integer({ summary: 'One call in full: its prompt report (what each section held, what was cut and why), the messages it was sent and its answer, redacted as the audit redacts.', min: 1 }),
  };

  async run(): Promise<ListJson<CamelKeys<LlmJson>> | (CamelKeys<LlmJson> & { request: { messages: Message[] } | null; response: Message | null })> {
    const { flags } = await this.parse(AuditLlm);
    const { kernel, config } = await this.boot();
    const db = kernel.service('database');
    if (flags.show !== undefined) {
      const row = await getLlmCall(db, flags.show);
      if (!row) throw auditError('ORYX_E_AUDIT_NOT_FOUND', `No model call with id ${flags.show}`);
      // The same redaction the audit applies to what it writes (its options from the config, the kernel's secrets).
      const { callMessages, createRedactor } = await import('../../runtime.ts');
      const opts = (config.plugins.find((p) => p.name === 'audit')?.options ?? {}) as AuditOptions;
      const redact = createRedactor({ redact: opts.redact, defaults: opts.redactDefaults, exact: (text) => kernel.secrets.mask(text) });
      const messages = await callMessages(row, db, kernel.service('sessions'), redact);
      if (!this.jsonEnabled()) this.log(details(row, messages));
      return { ...camelKeys(asJson(row)), request: messages ? { messages: messages.request } : null, response: messages?.response ?? null };
    }
    const rows = await listLlmCalls(db, flags);
    if (!this.jsonEnabled()) {
      if (rows.length === 0) this.log('No model calls recorded (with these filters).');
      else {
        this.log(table(rows.map((r) => ({
          id: r.id, time: shortTime(r.created_at), session: shortId(r.session_id), agent: r.agent, iter: r.iteration, try: r.attempt,
          model: r.model, in: r.input_tokens, cached: r.cache_read_tokens ?? '', out: r.output_tokens, ms: r.latency_ms, finish: r.finish_reason, status: r.status,
          cut: cutChars(promptReportOf(r)), error: r.error ? `${r.error_code}: ${r.error}` : '',
        }))));
      }
    }
    return listJson(rows.map((r) => camelKeys(asJson(r))));
  }
}

/** A row as `--json` prints it: the prompt report parsed. */
type LlmJson = Omit<LlmCallRow, 'prompt_report'> & { prompt_report: PromptReportRow | null };

function asJson(row: LlmCallRow): LlmJson {
  return { ...row, prompt_report: promptReportOf(row) ?? null };
}

/** Characters the prompt builder left out, for the table ('' when nothing was, '?' for rows without a report). */
function cutChars(report: PromptReportRow | undefined): string {
  if (!report) return '?';
  const chars = report.cut.reduce((sum, [, n]) => sum + n, 0);
  return chars ? String(chars) : '';
}

/** A message for a person: its role, its text, its tool calls. */
function shownMessage(m: Message): string {
  const head = m.role === 'tool' ? `[tool ${m.name}${m.isError ? ', error' : ''}]` : `[${m.role}]`;
  const calls = m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => `\n    → ${c.name} ${JSON.stringify(c.args)}`).join('') : '';
  return `  ${head} ${m.content.split('\n').join('\n    ')}${calls}`;
}

/** One call for a person: its fields, the prompt report, then what it was sent and answered. */
function details(r: LlmCallRow, messages?: CallMessages): string {
  return [summary(r), ...conversation(messages)].join('\n');
}

function conversation(m: CallMessages | undefined): string[] {
  if (!m) return ['messages: not available (the call has no session, or its session was deleted)'];
  return [
    `sent ${m.request.length} message(s) from the session (the system prompt is not stored: its sections are above):`,
    ...m.request.map(shownMessage),
    m.response ? `answer:\n${shownMessage(m.response)}` : 'answer: none (the call failed)',
  ];
}

function summary(r: LlmCallRow): string {
  const report = promptReportOf(r);
  const lines = [
    `model call ${r.id} at ${r.created_at}: ${r.provider ?? '?'} ${r.model ?? '?'}, session ${r.session_id ?? '-'}, run ${r.run_id ?? '-'}, agent ${r.agent ?? '-'}, iteration ${r.iteration ?? '-'}, attempt ${r.attempt}`,
    `status ${r.status}${r.error ? ` (${r.error_code}: ${r.error})` : ''}; tokens in ${r.input_tokens ?? '?'}${cacheText(r)} out ${r.output_tokens ?? '?'}; ${r.latency_ms ?? '?'} ms; finish ${r.finish_reason ?? '-'}`,
  ];
  if (!report) return [...lines, 'prompt report: not recorded (a row from before reports were kept)'].join('\n');
  lines.push(`prompt (about ${report.tokens} tokens): ${report.in.map(([section, chars]) => `${section} ${chars}`).join(', ')} characters`);
  if (!report.cut.length) lines.push('nothing was cut');
  for (const [section, chars, reason] of report.cut) lines.push(`cut from ${section}: ${chars} characters (${reason})`);
  return lines.join('\n');
}

/** The prompt-cache part of a call's input tokens, when the provider reported it. */
function cacheText(r: LlmCallRow): string {
  const parts = [...(r.cache_read_tokens !== null ? [`${r.cache_read_tokens} cached`] : []), ...(r.cache_write_tokens ? [`${r.cache_write_tokens} written to cache`] : [])];
  return parts.length ? ` (${parts.join(', ')})` : '';
}
