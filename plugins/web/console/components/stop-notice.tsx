import type { StopNotice } from '../transcript.ts';

/** Titles of the endings the console knows; any other reason is shown by its name. */
function titleOf(notice: StopNotice): string {
  if (notice.code === 'ORYX_E_WEB_STOPPED' || notice.reason === 'aborted') return 'Stopped';
  if (notice.reason === 'error') return 'The run failed';
  if (notice.reason === 'limit') return 'Stopped at the iteration limit';
  if (notice.reason === 'suspended') return 'Waiting for approval';
  if (notice.reason === 'length') return 'The answer was cut off';
  if (notice.reason === 'content_filter') return 'The answer was withheld';
  return `Stopped: ${notice.reason}`;
}

/** How a run ended when it was not a plain final answer: reason, code, message and hint. */
export function StopNoticeView({ notice }: { notice: StopNotice }) {
  return (
    <div class={`notice ${notice.reason === 'error' && notice.code !== 'ORYX_E_WEB_STOPPED' ? 'bad' : 'warn'}`} role="alert" data-reason={notice.reason}>
      <p><strong>{titleOf(notice)}</strong>{notice.code && <> <code class="code">{notice.code}</code></>}</p>
      {notice.message && <p>{notice.message}</p>}
      {notice.hint && <p class="hint">{notice.hint}</p>}
    </div>
  );
}
