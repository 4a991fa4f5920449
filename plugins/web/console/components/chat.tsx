import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { ApiError, type Api } from '../api.ts';
import { ApprovalsPanel, pendingApprovals, type PendingApproval } from './approvals.tsx';
import { applyEvent, errorNotice, fromHistory, stopNoticeOf, type Item, type StopNotice, type StoredMessage, type ToolAudit } from '../transcript.ts';
import { nextStatus, startStatus, statusText, type RunStatus } from '../run-status.ts';
import { MarkdownBlock } from './markdown-block.tsx';
import { StopNoticeView } from './stop-notice.tsx';
import { ToolCard } from './tool-card.tsx';
import type { SessionTrace } from '../../src/trace-types.ts';

/** Messages read back from a session (the API gives at most the last 100). */
const HISTORY = 100;

/** An error as a notice under the chat. */
function noticeOf(error: unknown): StopNotice {
  const e = error instanceof ApiError ? error : new ApiError(0, '', String(error));
  return errorNotice({ code: e.code, message: e.message, ...(e.hint ? { hint: e.hint } : {}) });
}

/** The live status line of a run: phase, current tool, elapsed time, tokens; it ticks every second. */
function RunStatusLine({ status }: { status: RunStatus }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const tool = status.phase === 'tool' ? status.tools.at(-1)?.name : status.phase === 'approval' ? status.waitingFor : undefined;
  return <span class="run-status" data-phase={status.phase} data-tool={tool}>{statusText(status, Math.max(now, status.startedAt))}</span>;
}

/** The tool calls the audit trail knows of, by call id: their status (denials), duration and who decided them. */
async function toolAudit(api: Api, sessionId: string): Promise<Map<string, ToolAudit>> {
  const seen = new Map<string, ToolAudit>();
  try {
    const trace = await api.get<SessionTrace>(`api/sessions/${encodeURIComponent(sessionId)}/trace?runs=100`);
    for (const run of trace.runs) {
      for (const e of run.entries) {
        if (e.kind === 'tool' && e.toolCallId) {
          seen.set(e.toolCallId, {
            status: e.status, durationMs: e.durationMs, ...(e.deniedReason ? { deniedReason: e.deniedReason } : {}), ...(e.approval ? { approval: e.approval } : {}),
          });
        }
      }
    }
  } catch {
    // No audit trail on this server: the cards show what the messages keep.
  }
  return seen;
}

/**
 * The chat with one session (or a new one, made on the first message): its history, the run
 * going on streamed token by token with its tool calls, a Stop button, and how the last run
 * ended when that was not a plain answer.
 */
export function Chat(props: {
  api: Api; agent: string; sessionId?: string;
  /** Whether the server has the audit plugin, whose trail adds durations and denials to cards read back. */
  audited: boolean;
  /**
   * The ids of this session's pending approvals, as the app last polled them (any door's: a CLI
   * run that paused, a scheduled run): when they change, the session is read again.
   */
  pendingKey?: string;
  onSessionCreated(id: string): void; onSessionAgent(agent: string): void; onRunEnded(): void;
}) {
  const { api, agent, sessionId } = props;
  const [items, setItems] = useState<Item[]>([]);
  const [live, setLive] = useState<Item[]>([]);
  const [notice, setNotice] = useState<StopNotice | undefined>();
  const [running, setRunning] = useState<string | undefined>();
  const [stopping, setStopping] = useState(false);
  // From Enter until the session exists and the run starts; then `running` says which session runs.
  const [sending, setSending] = useState(false);
  // Runs ended in this chat: a marker for scripts and tests that wait for a run to end.
  const [ended, setEnded] = useState(0);
  const [draft, setDraft] = useState('');
  const [loadError, setLoadError] = useState<unknown>();
  const [approvals, setApprovals] = useState<PendingApproval[]>([]);
  // The live status of the run going on here, or of a run resumed by a decision on this page.
  const [status, setStatus] = useState<RunStatus | undefined>();
  const [resumed, setResumed] = useState<RunStatus | undefined>();
  // The run going on: its session, the chat as it was when it started, its events and status so far.
  const run = useRef<{ id: string; base: Item[]; events: Item[]; status: RunStatus } | undefined>(undefined);
  const stream = useRef<AbortController | undefined>(undefined);
  const scroller = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  // The session on screen; a run keeps going (and is shown again) when the reader looks elsewhere.
  const viewing = useRef(sessionId);
  viewing.current = sessionId;

  const load = async (id: string) => {
    const [session, audit, waiting] = await Promise.all([
      api.get<{ agent: string; messages: StoredMessage[] }>(`api/sessions/${encodeURIComponent(id)}?limit=${HISTORY}`),
      props.audited ? toolAudit(api, id) : new Map<string, ToolAudit>(),
      pendingApprovals(api, id).catch(() => []),
    ]);
    props.onSessionAgent(session.agent);
    if (viewing.current === id) setApprovals(waiting);
    return fromHistory(session.messages, audit, new Set(waiting.map((a) => a.toolCallId)));
  };

  /** After a decision: the session as stored now (the approved call and what the run did next). */
  const reload = () => {
    if (!sessionId) return;
    setNotice(undefined);
    load(sessionId).then(setItems, setLoadError).finally(() => { setEnded((n) => n + 1); props.onRunEnded(); });
  };

  useEffect(() => {
    const going = run.current;
    if (sessionId && going?.id === sessionId) { setItems(going.base); setLive(going.events); setStatus(going.status); return; }
    setNotice(undefined);
    setLoadError(undefined);
    pinned.current = true;
    setApprovals([]);
    if (!sessionId) { setItems([]); return; }
    let current = true;
    load(sessionId).then((loaded) => { if (current) setItems(loaded); }, (e: unknown) => { if (current) { setItems([]); setLoadError(e); } });
    return () => { current = false; };
  }, [sessionId]);

  // Approvals that appeared or went (another door's run paused, another person decided): read the session again.
  const seenKey = useRef(props.pendingKey);
  useEffect(() => {
    if (seenKey.current === props.pendingKey) return;
    seenKey.current = props.pendingKey;
    if (!sessionId || run.current?.id === sessionId || resumed) return;
    let current = true;
    load(sessionId).then((loaded) => { if (current) setItems(loaded); }, () => {});
    return () => { current = false; };
  }, [props.pendingKey]);

  // Follow the conversation down as it grows, unless the reader scrolled up.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && pinned.current) el.scrollTop = el.scrollHeight;
  }, [items, live, notice]);

  const send = async () => {
    const message = draft.trim();
    if (!message || running || sending) return;
    setSending(true);
    setNotice(undefined);
    setLoadError(undefined);
    let id = sessionId;
    const base: Item[] = [...items, { kind: 'user', key: `sent${items.length}`, text: message }];
    try {
      id ??= (await api.post<{ id: string }>('api/sessions', { agent })).id;
    } catch (e) {
      setNotice(noticeOf(e));
      setSending(false);
      setEnded((n) => n + 1);
      return;
    }
    const going = (run.current = { id, base, events: [] as Item[], status: startStatus(Date.now()) });
    setStatus(going.status);
    if (id !== sessionId) props.onSessionCreated(id);
    setDraft('');
    pinned.current = true;
    setItems(base);
    setRunning(id);
    setSending(false);
    const controller = new AbortController();
    stream.current = controller;
    let ended: StopNotice | undefined;
    const onScreen = () => viewing.current === id;
    try {
      for await (const e of api.run(id, message, controller.signal)) {
        going.events = applyEvent(going.events, e, Date.now(), 'live');
        going.status = nextStatus(going.status, e);
        ended = stopNoticeOf(e) ?? ended;
        // The notice waits for the end of the run: said once, when the run is over.
        if (onScreen()) { setLive(going.events); setStatus(going.status); }
      }
    } catch (e) {
      // Aborted here only when the stop request failed: closing the stream stops the run too.
      ended = (e as Error).name === 'AbortError' ? errorNotice({ code: 'ORYX_E_WEB_STOPPED', message: '' }) : noticeOf(e);
    }
    setStatus(undefined);
    // The stored session is the truth: show it as stored (the live view folded in if it cannot be read).
    if (onScreen()) {
      try {
        setItems(await load(id));
      } catch {
        setItems([...base, ...going.events]);
      }
      setNotice(ended);
    }
    run.current = undefined;
    setLive([]);
    setRunning(undefined);
    setStopping(false);
    setEnded((n) => n + 1);
    stream.current = undefined;
    props.onRunEnded();
  };

  const stop = async () => {
    if (!running) return;
    setStopping(true);
    try {
      await api.post(`api/sessions/${encodeURIComponent(running)}/stop`);
    } catch {
      stream.current?.abort(); // the server also stops a run whose client goes away
    }
  };

  const here = running !== undefined && running === sessionId;
  const shown = here ? [...items, ...live] : items;
  return (
    <section class="chat" aria-label="Chat" data-runs-ended={ended}>
      <div class="transcript" ref={scroller}
        onScroll={(e) => { const el = e.currentTarget; pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40; }}>
        {loadError && <StopNoticeView notice={noticeOf(loadError)} />}
        {shown.length === 0 && !loadError && <p class="empty">{sessionId ? 'No messages yet.' : `Start a conversation with ${agent || 'an agent'}.`}</p>}
        {shown.map((item) => {
          if (item.kind === 'tool') return <ToolCard key={item.key} item={item} />;
          if (item.kind === 'user') return <div key={item.key} class="msg user"><p class="who">You</p><p class="text">{item.text}</p></div>;
          return (
            <div key={item.key} class="msg assistant" data-state={item.streaming ? 'streaming' : 'done'}>
              <p class="who">{agent}</p>
              <MarkdownBlock text={item.text} />
            </div>
          );
        })}
        {notice && <StopNoticeView notice={notice} />}
        {!here && <ApprovalsPanel api={api} approvals={approvals} onDecided={reload} onProgress={setResumed} />}
      </div>
      <form class="composer" onSubmit={(e) => { e.preventDefault(); void send(); }}>
        <textarea
          aria-label="Message" placeholder="Message (Enter to send, Shift+Enter for a new line)" rows={2} value={draft}
          onInput={(e) => setDraft(e.currentTarget.value)}
          onKeyDown={(e) => { if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) { e.preventDefault(); void send(); } }}
        />
        {here
          ? <button type="button" class="stop" onClick={() => void stop()} disabled={stopping}>{stopping ? 'Stopping…' : 'Stop'}</button>
          : <button type="submit" class="primary" disabled={!draft.trim() || running !== undefined || sending}>Send</button>}
      </form>
      <p class="status" role="status">
        {here
          ? (stopping ? 'Stopping the run…' : status ? <RunStatusLine status={status} /> : '')
          : resumed ? <RunStatusLine status={resumed} />
          : running ? 'A run is going on in another session: open it to follow or stop it.' : ''}
      </p>
    </section>
  );
}
