import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The headers of the tool call a Streamable HTTP request is made for (`ctx.headers`: a tracing
 * plugin's W3C `traceparent`). The connection is shared by every call, and the SDK sends each
 * request from inside `callTool`, so the call's headers travel in its async context to the
 * transport's `fetch` rather than through the SDK.
 */
const current = new AsyncLocalStorage<Readonly<Record<string, string>>>();

/** Runs `fn` with `headers` on every HTTP request it makes through {@link withCallHeaders}. */
export function inCall<T>(headers: Readonly<Record<string, string>> | undefined, fn: () => Promise<T>): Promise<T> {
  return headers && Object.keys(headers).length ? current.run(headers, fn) : fn();
}

/** The request's init with the current call's headers added (over the transport's own of the same name). */
export function withCallHeaders(init: RequestInit | undefined): RequestInit | undefined {
  const extra = current.getStore();
  if (!extra) return init;
  const headers = new Headers(init?.headers);
  for (const [name, value] of Object.entries(extra)) headers.set(name, value);
  return { ...init, headers };
}
