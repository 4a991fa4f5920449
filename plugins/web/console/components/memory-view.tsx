import { useEffect, useState } from 'preact/hooks';
import { ApiError, type Api } from '../api.ts';
import { MarkdownBlock } from './markdown-block.tsx';

interface Entry { date: string; text: string }
interface Memory { agent: string; scope?: string; user?: string; path: string; core: Entry[]; archive: Entry[] }

type Loaded = { memory: Memory } | { error: ApiError };

function Zones({ title, loaded }: { title: string; loaded?: Loaded }) {
  if (!loaded) return <section class="memory"><h2>{title}</h2><p role="status">Loading…</p></section>;
  if ('error' in loaded) {
    return (
      <section class="memory"><h2>{title}</h2>
        <p class="error">{loaded.error.message} {loaded.error.code && <code>{loaded.error.code}</code>}</p>
        {loaded.error.hint && <p class="hint">{loaded.error.hint}</p>}
      </section>
    );
  }
  const { memory } = loaded;
  return (
    <section class="memory">
      <h2>{title}</h2>
      <p class="meta"><code>{memory.path}</code></p>
      {(['core', 'archive'] as const).map((zone) => (
        <div key={zone} class={`zone ${zone}`}>
          <h3>{zone === 'core' ? 'Core' : 'Archive'} <span class="meta">({memory[zone].length})</span></h3>
          {memory[zone].length === 0
            ? <p class="empty">Nothing here yet.</p>
            : <ul>{memory[zone].map((e, i) => <li key={i}><span class="meta">{e.date}</span><MarkdownBlock text={e.text} /></li>)}</ul>}
        </div>
      ))}
    </section>
  );
}

/** The agent's long-term memory (MEMORY.md), and the console user's own memory of the agent: read only. */
export function MemoryView({ api, agent, user }: { api: Api; agent: string; user?: string }) {
  const [own, setOwn] = useState<Loaded | undefined>();
  const [users, setUsers] = useState<Loaded | undefined>();
  useEffect(() => {
    if (!agent) return;
    setOwn(undefined);
    setUsers(undefined);
    const read = (query: string, set: (l: Loaded) => void) => api.get<Memory>(`api/agents/${encodeURIComponent(agent)}/memory${query}`)
      .then((memory) => set({ memory }), (error: ApiError) => set({ error }));
    void read('', setOwn);
    if (user) void read(`?user=${encodeURIComponent(user)}`, setUsers);
  }, [api, agent, user]);
  return (
    <div class="memory-view" aria-label="Memory">
      <Zones title={`Memory of ${agent}`} loaded={own} />
      {user && <Zones title={`What ${agent} remembers of ${user} (you)`} loaded={users} />}
    </div>
  );
}
