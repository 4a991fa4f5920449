import { useEffect, useState } from 'preact/hooks';
import type { Api, ApiError } from '../api.ts';
import { count, duration, when } from '../format.ts';
import type { LlmEntry, SessionTrace, ToolEntry, TraceTotals } from '../../src/trace-types.ts';

function TotalsLine({ t }: { t: TraceTotals }) {
  const parts = [
    `${t.llmCalls} model call${t.llmCalls === 1 ? '' : 's'}`,
    `${count(t.inputTokens)} tokens in${t.cacheReadTokens !== undefined ? ` (${count(t.cacheReadTokens)} cached)` : ''}`, `${count(t.outputTokens)} out`,
    `${t.toolCalls} tool call${t.toolCalls === 1 ? '' : 's'}`,
  ];
  if (t.retries) parts.push(`${t.retries} retried`);
  if (t.llmErrors) parts.push(`${t.llmErrors} model error${t.llmErrors === 1 ? '' : 's'}`);
  if (t.toolErrors) parts.push(`${t.toolErrors} tool error${t.toolErrors === 1 ? '' : 's'}`);
  if (t.denied) parts.push(`${t.denied} denied`);
  return <p class="totals">{parts.join(' · ')}</p>;
}

function EntryRow({ e, span }: { e: LlmEntry | ToolEntry; span: number }) {
  // Placed by offset and duration within the run, so waits and overlaps show.
  const left = span > 0 ? (e.offsetMs / span) * 100 : 0;
  const width = span > 0 ? Math.max(0.8, (e.durationMs / span) * 100) : 100;
  const label = e.kind === 'llm' ? `${e.model ?? 'model'}${e.attempt > 1 ? ` (attempt ${e.attempt})` : ''}` : e.tool;
  // Who decided a call that waited for a person: a denial's reason is then that decision.
  const approval = e.kind === 'tool' ? e.approval : null;
  const decided = approval ? `${approval.decision} by ${approval.by}${approval.reason ? `: ${approval.reason}` : ''}` : undefined;
  let detail: string;
  if (e.kind === 'llm') {
    detail = e.status === 'error'
      ? `${e.errorCode ?? 'error'}${e.retried ? ', retried' : ''}: ${e.error ?? ''}`
      : `${count(e.inputTokens ?? 0)}${e.cacheReadTokens !== undefined ? ` (${count(e.cacheReadTokens)} cached)` : ''} → ${count(e.outputTokens ?? 0)} tokens${e.finishReason ? ` · ${e.finishReason}` : ''}`;
  } else if (approval) {
    detail = approval.decision === 'denied' ? '' : `· ${e.status}`;
  } else {
    detail = e.status === 'denied' ? `denied: ${e.deniedReason ?? ''}` : e.status;
  }
  return (
    <li class={`entry ${e.kind}-call ${e.status}`} data-kind={e.kind} data-status={e.status} title={decided}>
      <span class="label"><span class="kind">{e.kind === 'llm' ? 'model' : 'tool'}</span> <code>{label}</code></span>
      <span class="track" aria-hidden="true"><span class="bar" style={{ left: `${Math.min(left, 99.2)}%`, width: `${Math.min(width, 100 - Math.min(left, 99.2))}%` }} /></span>
      <span class="detail">
        <span class="duration">{duration(e.durationMs)}</span>
        {approval && <>{' '}<span class={`decided ${approval.decision}`} data-decision={approval.decision}>{decided}</span></>}
        {detail && <>{' '}<span class="text">{detail}</span></>}
      </span>
    </li>
  );
}

/** Every run of a session drawn from the audit trail: model and tool calls on a time axis, with totals per run. */
export function Timeline({ api, sessionId }: { api: Api; sessionId?: string }) {
  const [trace, setTrace] = useState<SessionTrace | undefined>();
  const [error, setError] = useState<ApiError | undefined>();
  const [version, setVersion] = useState(0);
  useEffect(() => {
    if (!sessionId) return;
    let current = true;
    setError(undefined);
    api.get<SessionTrace>(`api/sessions/${encodeURIComponent(sessionId)}/trace?runs=50`)
      .then((t) => { if (current) setTrace(t); }, (e: ApiError) => { if (current) { setTrace(undefined); setError(e); } });
    return () => { current = false; };
  }, [api, sessionId, version]);

  if (!sessionId) return <p class="empty">Pick a session to see its runs.</p>;
  if (error) {
    return <div class="notice bad" role="alert"><p>{error.message} {error.code && <code>{error.code}</code>}</p>{error.hint && <p class="hint">{error.hint}</p>}</div>;
  }
  if (!trace) return <p role="status">Loading the timeline…</p>;
  const runs = [...trace.runs].reverse(); // newest first
  return (
    <section class="timeline" aria-label="Timeline">
      <header class="timeline-head">
        <h2>Runs of this session</h2>
        <button type="button" onClick={() => setVersion((v) => v + 1)}>Refresh</button>
      </header>
      {runs.length > 1 && <TotalsLine t={trace.totals} />}
      {runs.length === 0 && <p class="empty">No run recorded yet.</p>}
      {runs.map((run, i) => (
        <article key={run.runId} class="run" aria-label={`Run ${trace.runs.length - i}`}>
          <h3>Run {trace.runs.length - i} <span class="meta">{when(run.startedAt)} · {duration(run.durationMs)}</span></h3>
          <TotalsLine t={run.totals} />
          <ol class="entries">{run.entries.map((e, j) => <EntryRow key={j} e={e} span={run.durationMs} />)}</ol>
        </article>
      ))}
      {trace.moreRuns && <p class="meta">Older runs are not shown.</p>}
    </section>
  );
}
