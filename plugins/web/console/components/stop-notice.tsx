import type { StopNotice } from '../transcript.ts';

/** The title of an ending the transcript gave none: a failure, or a reason shown by its name. */
function titleOf(notice: StopNotice): string {
  if (notice.title) return notice.title;
  if (notice.reason === 'error') return 'The run failed';
  return `Stopped: ${notice.reason}`;
}

/**
 * How a run ended when it was not a plain final answer, said once: a title in plain words, what
 * it means, and what to do. A failure also shows its code (what to search for, what to report);
 * a run the server cut short keeps it only in `data-code`.
 */
export function StopNoticeView({ notice }: { notice: StopNotice }) {
  const failed = notice.reason === 'error';
  return (
    <div class={`notice ${failed ? 'bad' : 'warn'}`} role="alert" data-reason={notice.reason} data-code={notice.code}>
      <p><strong>{titleOf(notice)}</strong>{failed && notice.code && <> <code class="code">{notice.code}</code></>}</p>
      {notice.message && <p>{notice.message}</p>}
      {notice.hint && <p class="hint">{notice.hint}</p>}
    </div>
  );
}
