import { errorMessage, isOryxError } from '@oryxos/provider-spec';
import { REFUSED_ANSWER, STREAM_CUT } from './guarded-transport.ts';

/**
 * What went wrong with a request: the server answered with an error (`protocol`), it ran out
 * of time (`timeout`), OryxOS refused the answer (`refused`, over a limit), its response
 * stream was cut (`cut`), the server no longer knows the session (`session`, HTTP 404 with a
 * session), authorization is missing or was refused (`auth`), or the connection is gone
 * (`lost`: closed, fetch failed, another HTTP error status).
 */
export type FailureKind = 'protocol' | 'timeout' | 'lost' | 'refused' | 'cut' | 'session' | 'auth';

/** The HTTP status of an SDK transport error (`Streamable HTTP error: …` or the SSE transport's `SseError`), if it is one. */
export function httpStatus(error: unknown): number | undefined {
  const e = error as { code?: unknown; message?: unknown; name?: unknown };
  if (typeof e?.code !== 'number' || typeof e.message !== 'string') return undefined;
  if (/^Streamable HTTP error|^SSE error|Non-200 status code/.test(e.message) || e.name === 'SseError') return e.code > 0 ? e.code : undefined;
  return undefined;
}

/** The kind of a failure (see {@link FailureKind}). `hadSession`: the connection had an HTTP session id. */
export function classify(error: unknown, hadSession = false): FailureKind {
  if (isOryxError(error)) return error.code.startsWith('ORYX_E_MCP_AUTH_') ? 'auth' : 'lost';
  const e = error as { name?: string; code?: unknown; issues?: unknown };
  if (e?.name === 'McpError') {
    if (e.code === REFUSED_ANSWER) return 'refused';
    if (e.code === STREAM_CUT) return 'cut';
    if (e.code === -32001) return 'timeout';
    if (e.code === -32000) return 'lost';
    return 'protocol';
  }
  if (Array.isArray(e?.issues)) return 'protocol'; // the result did not match the schema
  const status = httpStatus(error);
  if (status === 404 && hadSession) return 'session';
  if (status === 401 || status === 403) return 'auth';
  if ((e as { name?: string })?.name === 'UnauthorizedError') return 'auth';
  return 'lost';
}

/** The network error under a failed `fetch` (`ECONNREFUSED`, `ENOTFOUND`, a certificate problem), if any. */
function networkCause(error: unknown): { code?: string; message: string } | undefined {
  let e = error as { cause?: unknown; code?: unknown; message?: unknown } | undefined;
  let deepest: string | undefined;
  for (let i = 0; e && i < 4; i++) {
    if (typeof e.code === 'string' && /^E[A-Z]+|^UND_ERR|CERT|SELF_SIGNED/.test(e.code)) return { code: e.code, message: String(e.message ?? e.code) };
    if (i > 0 && typeof e.message === 'string' && e.message) deepest = e.message;
    e = e.cause as typeof e;
  }
  // `fetch failed` says nothing; what it wraps does (`bad port`, an invalid header).
  return deepest ? { message: deepest } : undefined;
}

/**
 * Why a remote server could not be reached, in words a person can act on: the HTTP status
 * and what it means (401: it needs authorization; 404/405: no MCP endpoint of this transport
 * there), or the network error (nothing listens, the name does not resolve, the certificate).
 */
export function describeRemoteFailure(error: unknown, url: string, transport: 'http' | 'sse'): { why: string; needsLogin?: boolean } {
  const status = httpStatus(error);
  let origin = url;
  try { origin = new URL(url).origin; } catch { /* the url was checked at load */ }
  if (status === 401) return { why: `the server answered HTTP 401 Unauthorized: it needs authorization`, needsLogin: true };
  if (status === 403) return { why: 'the server answered HTTP 403 Forbidden: the credentials it was given do not allow this' };
  if (status === 404 || status === 405) {
    const other = transport === 'http' ? 'If it is a legacy HTTP+SSE server (its URL often ends in /sse), set type: sse' : 'If it is a Streamable HTTP server, drop type: sse';
    return { why: `the server answered HTTP ${status} at ${url}: there is no MCP ${transport === 'http' ? 'Streamable HTTP' : 'HTTP+SSE'} endpoint there. ${other}` };
  }
  if (status !== undefined) return { why: `the server answered HTTP ${status}${status >= 500 ? ' (a failure on its side)' : ''}: ${errorMessage(error).replace(/^Streamable HTTP error: /, '')}` };
  const cause = networkCause(error);
  if (cause?.code === 'ECONNREFUSED') return { why: `nothing answers at ${origin} (connection refused): is the server running?` };
  if (cause?.code === 'ENOTFOUND' || cause?.code === 'EAI_AGAIN') return { why: `the host of ${origin} does not resolve (${cause.code})` };
  if (cause?.code === 'ECONNRESET') return { why: `${origin} closed the connection (ECONNRESET)` };
  if (cause && /CERT|SELF_SIGNED|TLS/.test(cause.code ?? '')) return { why: `the TLS certificate of ${origin} is not trusted (${cause.code})` };
  if (cause) return { why: `${origin} could not be reached: ${cause.message}` };
  return { why: errorMessage(error) };
}
