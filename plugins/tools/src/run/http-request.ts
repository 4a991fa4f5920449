import type { SandboxAction } from '@oryxos/contracts';
import type { ToolContext, ToolResult } from '@oryxos/kernel';
import { Capture } from '../cap.ts';
import { pinnedFetch, resolveOnce } from '../pinned-fetch.ts';
import type { ToolEnv } from '../builtin.ts';
import type { HttpRequestArgs } from '../tools/http-request.ts';
import { failure, isSandboxDenial } from './results.ts';

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * An http action with the addresses the request will connect to: the sandbox checks those
 * instead of resolving the host again.
 */
type HttpAction = Extract<SandboxAction, { kind: 'http' }>;
// Set by fetch from the URL and body; letting the model set them would let it address
// another virtual host than the one the sandbox checked, or desync the framing.
const FORBIDDEN_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'upgrade', 'keep-alive', 'te', 'trailer']);
// Credentials do not follow a redirect to another origin (as browsers do).
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];
const TEXT_TYPE = /^(text\/|application\/([\w.+-]*\+)?(json|xml|javascript|ecmascript|x-www-form-urlencoded|yaml|x-yaml|toml|csv|graphql|x-ndjson)\b)/i;

/**
 * Runs `http_request` (defined in tools/http-request.ts): fetch with `redirect: 'manual'`;
 * every hop (the first included) is enforced by the sandbox right before it is sent, on the
 * addresses its host resolved to, which are the ones it connects to (pinned-fetch.ts). The body
 * is read up to `maxResponseBytes` and shown up to `maxOutputChars`, with the length reported.
 */
export async function httpRequest(a: HttpRequestArgs, ctx: ToolContext, env: ToolEnv): Promise<ToolResult | string> {
  const o = env.options;
  let method: string = a.method ?? 'GET';
  let body = a.body;
  if (body !== undefined && (method === 'GET' || method === 'HEAD')) return failure(`http_request: a ${method} request cannot have a body`);
  const headers = new Headers();
  for (const [name, value] of Object.entries(a.headers ?? {})) {
    if (FORBIDDEN_HEADERS.has(name.toLowerCase())) return failure(`http_request: the ${name} header cannot be set; it follows from the URL and body`);
    try { headers.set(name, value); } catch { return failure(`http_request: header ${JSON.stringify(name)} is not a valid header`); }
  }
  // The call's own headers (a tracer's traceparent) go on every hop, over any the model set.
  for (const [name, value] of Object.entries(ctx.headers)) headers.set(name, value);
  let url: URL;
  try { url = new URL(a.url); } catch { return failure(`http_request: ${JSON.stringify(a.url)} is not an absolute URL`); }

  const deadline = AbortSignal.timeout(o.httpTimeoutMs);
  const signal = AbortSignal.any([ctx.signal, deadline]);
  const hops: string[] = [];
  let close = () => {};
  try {
    for (;;) {
      // Resolved once: the sandbox checks these addresses, and the request goes to one of them.
      let addresses: string[] | undefined;
      let unresolved: NodeJS.ErrnoException | undefined;
      try { addresses = await resolveOnce(url.hostname); } catch (error) { unresolved = error as NodeJS.ErrnoException; }
      const action: HttpAction = { kind: 'http', url: url.href, method, ...(addresses ? { addresses } : {}) };
      await ctx.enforce(action);
      // Allowed by name (the sandbox trusts a host it lists), but there is nowhere to connect.
      if (unresolved) return failure(`http_request: ${url.hostname} could not be resolved (${unresolved.code ?? unresolved.message})`, true);
      const pinned = await pinnedFetch(url.href, { method, headers: [...headers], body, redirect: 'manual', signal }, addresses);
      close = pinned.close;
      const response = pinned.response;
      const location = response.headers.get('location');
      if (REDIRECTS.has(response.status) && location !== null) {
        await response.body?.cancel().catch(() => {});
        close();
        if (hops.length >= o.maxRedirects) return failure(`http_request: stopped after ${o.maxRedirects} redirects (${[url.href, ...hops].join(' -> ')})`);
        let next: URL;
        try { next = new URL(location, url); } catch { return failure(`http_request: ${url.href} redirected to an invalid location ${JSON.stringify(location)}`); }
        if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
          if (method !== 'HEAD') method = 'GET';
          body = undefined;
          headers.delete('content-type');
        }
        if (next.origin !== url.origin) for (const h of CREDENTIAL_HEADERS) headers.delete(h);
        hops.push(`${response.status} ${next.href}`);
        url = next;
        continue;
      }
      try {
        return await describeResponse(response, url, hops, o.maxOutputChars, o.maxResponseBytes);
      } finally {
        close();
      }
    }
  } catch (error) {
    close();
    if (isSandboxDenial(error)) throw error;
    if (deadline.aborted) return failure(`http_request: timed out after ${o.httpTimeoutMs} ms (${url.href})`, true);
    if (ctx.signal.aborted) return failure('http_request: cancelled');
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return failure(`http_request: ${url.href} failed: ${cause?.code ?? cause?.message ?? (error as Error).message}`, true);
  }
}

async function describeResponse(response: Response, url: URL, hops: string[], maxChars: number, maxBytes: number): Promise<ToolResult> {
  const capture = new Capture(maxChars);
  let stoppedEarly = false;
  if (response.body) {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      capture.push(value);
      if (capture.total >= maxBytes) { stoppedEarly = true; await reader.cancel().catch(() => {}); break; }
    }
  }
  const type = response.headers.get('content-type') ?? '';
  const shownHeaders = [...response.headers].filter(([k]) => k !== 'set-cookie').map(([k, v]) => `${k}: ${v}`).join('\n');
  const lines = [`HTTP ${response.status} ${response.statusText}`.trim(), `url: ${url.href}`];
  if (hops.length) lines.push(`redirects: ${hops.join(' -> ')}`);
  lines.push(shownHeaders.length > 2000 ? `${shownHeaders.slice(0, 2000)}\n[headers cut]` : shownHeaders);
  const size = stoppedEarly ? `more than ${maxBytes} bytes; reading stopped there` : `${capture.total} bytes`;
  if (capture.total === 0) lines.push('--- body (empty) ---');
  else if (type && !TEXT_TYPE.test(type)) lines.push(`--- body (${size}, ${type}: not text, not shown) ---`);
  else if (capture.binaryType()) lines.push(`--- body (binary, ${size}, ${capture.binaryType()}${type ? ` though labelled ${type}` : ''}: not shown) ---`);
  else {
    const { text, cut } = capture.text();
    lines.push(`--- body (${cut || stoppedEarly ? `${size}; only the first ${text.length} characters are shown` : size}) ---`, text);
  }
  return {
    content: lines.join('\n'),
    isError: response.status >= 400,
    retryable: response.status === 429 || response.status >= 500,
  };
}
