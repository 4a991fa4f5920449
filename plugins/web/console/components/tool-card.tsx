import { useState } from 'preact/hooks';
import { duration, pretty, prettyJson } from '../format.ts';
import type { ToolItem } from '../transcript.ts';
import { MarkdownBlock } from './markdown-block.tsx';

/** Results longer than this are cut, with a button to show all. */
const SHOWN_CHARS = 2000;

const STATUS_LABELS: Record<ToolItem['status'], string> = { running: 'running', waiting: 'waiting for approval', ok: 'ok', error: 'error', denied: 'denied' };

/** A result as Markdown cut to `max` characters: JSON as a code block (fenced longer than any run of backticks in it). */
function asMarkdown(result: string, max: number): { markdown: string; cut: boolean } {
  const json = prettyJson(result);
  const body = json ?? result;
  const cut = body.length > max;
  const shown = cut ? `${body.slice(0, max)}…` : body;
  if (json === undefined) return { markdown: shown, cut };
  const fence = '`'.repeat(Math.max(3, ...[...shown.matchAll(/`+/g)].map((m) => m[0].length + 1)));
  return { markdown: `${fence}json\n${shown}\n${fence}`, cut };
}

/** One tool call: name, status, duration and, when it waited for a person, who decided; unfolds to its arguments and result. */
export function ToolCard({ item }: { item: ToolItem }) {
  const [all, setAll] = useState(false);
  const result = item.result ?? '';
  const { markdown, cut } = asMarkdown(result, all ? Infinity : SHOWN_CHARS);
  return (
    <details class={`tool ${item.status}`} data-status={item.status} data-tool={item.name}>
      <summary>
        <span class="badge">{STATUS_LABELS[item.status]}</span>
        <code class="name">{item.name}</code>
        {item.durationMs !== undefined && <span class="duration">{duration(item.durationMs)}</span>}
        {item.approval ? (
          // A person's decision: who, and for a denial why (the audit's denial reason says the same).
          <span class={`decided ${item.approval.decision}`} data-decision={item.approval.decision}>
            {`${item.approval.decision} by ${item.approval.by}${item.approval.reason ? `: ${item.approval.reason}` : ''}`}
          </span>
        ) : item.status === 'denied' && item.deniedReason && <span class="reason">{item.deniedReason}</span>}
      </summary>
      <div class="tool-body">
        <h4>Arguments</h4>
        <pre class="args">{pretty(item.args)}</pre>
        {item.result !== undefined && (
          <>
            <h4>Result</h4>
            <MarkdownBlock class="md result" text={markdown} />
            {cut && <button type="button" class="link" onClick={() => setAll(true)}>Show all ({result.length.toLocaleString()} characters)</button>}
          </>
        )}
      </div>
    </details>
  );
}
