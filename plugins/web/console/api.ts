import { readSse } from './sse.ts';
import type { RunStreamEvent } from './transcript.ts';

/** An error the server answered (`{error: {code, message, hint}}`), or a failure with no code (no answer, or not OryxOS's). */
export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string, readonly hint?: string) {
    super(message);
  }
}

const TOKEN_KEY = 'oryx-token';

/** The token kept for this tab (sessionStorage: gone when the tab closes). */
export const tokenStore = {
  get: (): string | undefined => sessionStorage.getItem(TOKEN_KEY) ?? undefined,
  set: (token: string) => sessionStorage.setItem(TOKEN_KEY, token),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

async function failure(res: Response): Promise<ApiError> {
  try {
    const { error } = (await res.json()) as { error: { code: string; message: string; hint?: string } };
    return new ApiError(res.status, error.code, error.message, error.hint);
  } catch {
    return new ApiError(res.status, '', `The server answered ${res.status} ${res.statusText} without an OryxOS error (a proxy in between?)`);
  }
}

/**
 * Calls the API with the tab's token. Paths are relative (`api/agents`), so the console also
 * works behind a proxy that serves it under a sub-path. A 401 calls `onUnauthorized` (the
 * console then asks for the token again).
 */
export class Api {
  constructor(private readonly token: () => string | undefined, private readonly onUnauthorized: (error: ApiError) => void) {}

  private async request(path: string, init: RequestInit = {}): Promise<Response> {
    const token = this.token();
    const headers = new Headers(init.headers);
    if (token) headers.set('authorization', `Bearer ${token}`);
    if (init.body !== undefined) headers.set('content-type', 'application/json');
    let res: Response;
    try {
      res = await fetch(path, { ...init, headers });
    } catch (error) {
      if ((error as Error).name === 'AbortError') throw error;
      throw new ApiError(0, '', 'The server cannot be reached: is `oryx web` still running?');
    }
    if (res.ok) return res;
    const e = await failure(res);
    if (res.status === 401) this.onUnauthorized(e);
    throw e;
  }

  async get<T>(path: string): Promise<T> {
    return (await this.request(path)).json() as Promise<T>;
  }

  async post<T>(path: string, body: unknown = {}): Promise<T> {
    return (await this.request(path, { method: 'POST', body: JSON.stringify(body) })).json() as Promise<T>;
  }

  async delete(path: string): Promise<void> {
    await this.request(path, { method: 'DELETE' });
  }

  /** Sends a message and yields the run's events as they arrive, ending with `done` or `error`. */
  run(sessionId: string, message: string, signal?: AbortSignal): AsyncGenerator<RunStreamEvent> {
    return this.stream(`api/sessions/${encodeURIComponent(sessionId)}/messages`, { message }, signal);
  }

  /** Decides an approval and yields the events of the run it resumes, ending with `done` or `error`. */
  decide(approvalId: string, body: { decision: 'approve' | 'deny'; reason?: string }): AsyncGenerator<RunStreamEvent> {
    return this.stream(`api/approvals/${encodeURIComponent(approvalId)}`, body);
  }

  private async *stream(path: string, body: unknown, signal?: AbortSignal): AsyncGenerator<RunStreamEvent> {
    const res = await this.request(path, {
      method: 'POST', body: JSON.stringify(body), headers: { accept: 'text/event-stream' }, ...(signal ? { signal } : {}),
    });
    for await (const e of readSse(res.body!)) {
      if (!e.event) continue;
      yield { event: e.event, data: JSON.parse(e.data) } as RunStreamEvent;
    }
  }
}
