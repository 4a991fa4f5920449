// Where the console is, kept in the URL fragment so a reload (or a bookmark) lands on the same
// session and view. The fragment never reaches the server; `oryx web` also puts the token there
// (`#token=…`), which the console takes once and then removes from the address bar.

export type View = 'chat' | 'timeline' | 'memory';

export interface Route { session?: string; view: View }

const VIEWS: readonly View[] = ['chat', 'timeline', 'memory'];

/** Reads the route and a token handed over in `#token=…`. */
export function parseHash(hash: string): Route & { token?: string } {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const view = params.get('view') as View | null;
  return {
    view: view && VIEWS.includes(view) ? view : 'chat',
    ...(params.get('s') ? { session: params.get('s')! } : {}),
    ...(params.get('token') ? { token: params.get('token')! } : {}),
  };
}

/** The fragment of a route (no token, ever). */
export function formatHash(route: Route): string {
  const params = new URLSearchParams();
  if (route.session) params.set('s', route.session);
  if (route.view !== 'chat') params.set('view', route.view);
  const text = params.toString();
  return text ? `#${text}` : '';
}
