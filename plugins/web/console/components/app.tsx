import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { Api, ApiError, tokenStore } from '../api.ts';
import { formatHash, parseHash, type Route, type View } from '../route.ts';
import { AuthGate } from './auth-gate.tsx';
import { pendingBySession, usePendingApprovals } from './approvals.tsx';
import { Chat } from './chat.tsx';
import { MemoryView } from './memory-view.tsx';
import { SessionList, type SessionInfo } from './session-list.tsx';
import { Timeline } from './timeline.tsx';

/** `GET /api/info`. */
export interface Info {
  name: string; version: string; agents: string[]; defaultAgent: string;
  plugins: { name: string; version: string }[]; identity?: { name: string; namesUsers: boolean };
}

/** `GET /api/agents`, one entry. */
export interface AgentInfo { name: string; description: string; model?: string; provider?: string; error?: { code: string; message: string } }

type Auth = { state: 'checking' } | { state: 'needed'; message?: string } | { state: 'failed'; error: ApiError } | { state: 'ok'; info: Info };

const VIEW_LABELS: Record<View, string> = { chat: 'Chat', timeline: 'Timeline', memory: 'Memory' };

/** The console: signs in, then shows sessions on the side and the chosen view of one. */
export function App() {
  const [route, setRoute] = useState<Route>(() => parseHash(location.hash));
  const [auth, setAuth] = useState<Auth>({ state: 'checking' });
  const [agents, setAgents] = useState<AgentInfo[]>([]);
  const [agent, setAgent] = useState<string>('');
  const [listVersion, setListVersion] = useState(0);
  const [menuOpen, setMenuOpen] = useState(false);

  const api = useMemo(() => new Api(() => tokenStore.get(), () => {
    setAuth({ state: 'needed', message: 'The server no longer accepts the token of this tab (was it rotated?). Enter the current one.' });
  }), []);

  const signIn = useCallback(async () => {
    setAuth({ state: 'checking' });
    try {
      const info = await api.get<Info>('api/info');
      const list = (await api.get<{ items: AgentInfo[] }>('api/agents')).items;
      setAgents(list);
      setAgent((current) => current || info.defaultAgent || list[0]?.name || '');
      setAuth({ state: 'ok', info });
    } catch (error) {
      const e = error instanceof ApiError ? error : new ApiError(0, '', String(error));
      if (e.status === 401) {
        setAuth({ state: 'needed', ...(tokenStore.get() ? { message: `The server refused this token (${e.code}).` } : {}) });
      } else setAuth({ state: 'failed', error: e });
    }
  }, [api]);

  useEffect(() => {
    // A token handed over in the URL (`oryx web` prints one) is kept for the tab, then removed from the address bar.
    const { token } = parseHash(location.hash);
    if (token) tokenStore.set(token);
    history.replaceState(null, '', `${location.pathname}${location.search}${formatHash(parseHash(location.hash))}`);
    void signIn();
    // Back and forward (popstate), and a fragment edited by hand (hashchange).
    const onHash = () => setRoute(parseHash(location.hash));
    addEventListener('popstate', onHash);
    addEventListener('hashchange', onHash);
    return () => { removeEventListener('popstate', onHash); removeEventListener('hashchange', onHash); };
  }, [signIn]);

  const go = useCallback((next: Route) => {
    history.pushState(null, '', `${location.pathname}${location.search}${formatHash(next)}`);
    setRoute(next);
    setMenuOpen(false);
  }, []);

  // Approvals any door left pending, polled: the list's badges, and a chat's cue to show a new one.
  const pending = usePendingApprovals(api, auth.state === 'ok', listVersion);
  const counts = useMemo(() => pendingBySession(pending), [pending]);
  const allPendingKey = pending.map((a) => a.id).join(',');
  const pendingKey = pending.filter((a) => a.sessionId === route.session).map((a) => a.id).join(',');

  if (auth.state === 'checking') return <p class="splash" role="status">Connecting…</p>;
  if (auth.state === 'needed') {
    return <AuthGate message={auth.message} onToken={(token) => { tokenStore.set(token); void signIn(); }} />;
  }
  if (auth.state === 'failed') {
    return (
      <div class="splash" role="alert">
        <p><strong>The console cannot reach the server.</strong> {auth.error.message}</p>
        {auth.error.hint && <p class="hint">{auth.error.hint}</p>}
        <button type="button" onClick={() => void signIn()}>Try again</button>
      </div>
    );
  }

  const pickSession = (s: SessionInfo) => {
    setAgent(s.agent);
    go({ session: s.id, view: route.view });
  };
  const sessionCreated = (id: string) => {
    go({ session: id, view: 'chat' });
    setListVersion((v) => v + 1);
  };

  return (
    <div class={`app${menuOpen ? ' menu-open' : ''}`}>
      <header class="topbar">
        <button type="button" class="menu" aria-expanded={menuOpen} aria-controls="sessions" onClick={() => setMenuOpen(!menuOpen)}>Sessions</button>
        <h1>OryxOS</h1>
        <label class="agent-pick">
          <span>Agent</span>
          <select value={agent} onChange={(e) => { setAgent(e.currentTarget.value); go({ view: 'chat' }); }}>
            {agents.map((a) => <option key={a.name} value={a.name} disabled={!!a.error}>{a.name}{a.error ? ' (broken)' : ''}</option>)}
          </select>
        </label>
        <nav class="views" aria-label="Views">
          {(Object.keys(VIEW_LABELS) as View[]).map((v) => (
            <button key={v} type="button" aria-pressed={route.view === v} onClick={() => go({ ...route, view: v })}>{VIEW_LABELS[v]}</button>
          ))}
        </nav>
      </header>
      <SessionList
        api={api} agent={agent} current={route.session} version={listVersion} pending={counts} pendingKey={allPendingKey}
        onPick={pickSession} onNew={() => go({ view: 'chat' })}
      />
      <main class="main" id="main">
        {/* The chat stays mounted on the other views, so a run going on keeps streaming into it. */}
        <div class="view" hidden={route.view !== 'chat'}>
          <Chat
            api={api} agent={agent} sessionId={route.session} audited={auth.info.plugins.some((p) => p.name === 'audit')} pendingKey={pendingKey} onSessionCreated={sessionCreated}
            onSessionAgent={setAgent} onRunEnded={() => setListVersion((v) => v + 1)}
          />
        </div>
        {route.view === 'timeline' && <Timeline api={api} sessionId={route.session} />}
        {route.view === 'memory' && <MemoryView api={api} agent={agent} user={auth.info.identity?.name} />}
      </main>
    </div>
  );
}
