import { useEffect, useRef, useState } from 'preact/hooks';
import type { Api, ApiError } from '../api.ts';
import { when } from '../format.ts';

/** `GET /api/sessions`, one item. */
export interface SessionInfo { id: string; agent: string; title: string; createdAt: string; updatedAt: string; messageCount: number }

const PAGE = 30;

/**
 * The agent's sessions, most recently updated first, a page at a time, searchable by title.
 * `version` changes when a run ended or a session was made, to read the list again.
 */
export function SessionList(props: {
  api: Api; agent: string; current?: string; version: number;
  /** Approvals waiting in each session (any door's): a badge on its entry. */
  pending?: ReadonlyMap<string, number>;
  /** Changes when the pending approvals do: a session another door made may have one, so the list is read again. */
  pendingKey?: string;
  onPick(session: SessionInfo): void; onNew(): void;
}) {
  const { api, agent, current, version } = props;
  const [q, setQ] = useState('');
  const [query, setQuery] = useState('');
  const [items, setItems] = useState<SessionInfo[]>([]);
  const [next, setNext] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [loading, setLoading] = useState(false);
  const latest = useRef(0);

  // Search as the user types, once they pause.
  useEffect(() => {
    const timer = setTimeout(() => setQuery(q.trim()), 250);
    return () => clearTimeout(timer);
  }, [q]);

  const load = async (cursor?: string) => {
    const params = new URLSearchParams({ limit: String(PAGE) });
    if (agent) params.set('agent', agent);
    if (query) params.set('q', query);
    if (cursor) params.set('cursor', cursor);
    setLoading(true);
    const mine = ++latest.current;
    try {
      const page = await api.get<{ items: SessionInfo[]; nextCursor?: string }>(`api/sessions?${params}`);
      if (mine !== latest.current) return; // a newer load (another agent or search) answers instead
      setItems((old) => (cursor ? [...old, ...page.items] : page.items));
      setNext(page.nextCursor);
      setError(undefined);
    } catch (e) {
      if (mine === latest.current) setError((e as ApiError).message);
    } finally {
      if (mine === latest.current) setLoading(false);
    }
  };

  useEffect(() => { void load(); }, [agent, query, version, props.pendingKey]);

  return (
    <aside class="sidebar" id="sessions" aria-label="Sessions">
      <button type="button" class="primary new-chat" onClick={props.onNew}>New chat</button>
      <input type="search" placeholder="Search titles" aria-label="Search sessions by title" value={q} onInput={(e) => setQ(e.currentTarget.value)} />
      {error && <p class="error" role="alert">{error}</p>}
      <ul class="sessions">
        {items.map((s) => {
          const waiting = props.pending?.get(s.id) ?? 0;
          return (
          <li key={s.id}>
            <button type="button" class="session" aria-current={s.id === current ? 'page' : undefined} data-session={s.id} data-pending={waiting || undefined} onClick={() => props.onPick(s)}>
              <span class="title">{s.title || 'Untitled'}</span>
              {waiting > 0 && <span class="badge" title={`${waiting} tool call${waiting === 1 ? '' : 's'} waiting for approval`}>{waiting} waiting</span>}
              <span class="meta">{when(s.updatedAt)} · {s.messageCount} message{s.messageCount === 1 ? '' : 's'}</span>
            </button>
          </li>
          );
        })}
      </ul>
      {!loading && items.length === 0 && !error && <p class="empty">{query ? 'No session title matches.' : 'No sessions yet.'}</p>}
      {next && <button type="button" class="more" disabled={loading} onClick={() => void load(next)}>{query ? 'Search further' : 'Load more'}</button>}
    </aside>
  );
}
