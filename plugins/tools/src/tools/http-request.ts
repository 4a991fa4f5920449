import { shape as s, type Infer } from '@oryxos/schema-kit';
import type { Tool } from '@oryxos/kernel';
import { stringRecord } from '@oryxos/plugin-kit';
import { builtinTool, later, type ToolEnv } from '../builtin.ts';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
const args = s.object({
  url: s.string({ min: 1 }),
  method: s.literal(...METHODS).optional(),
  headers: stringRecord.optional(),
  body: s.string().optional(),
});
export type HttpRequestArgs = Infer<typeof args>;

/** The URL the sandbox is asked about: WHATWG-normalized, the same string fetch will use. */
function normalized(url: string): string {
  try { return new URL(url).href; } catch { return url; }
}

/**
 * `http_request {url, method?, headers?, body?}`: fetch with `redirect: 'manual'`; every hop
 * (the first included) is enforced by the sandbox right before it is sent. The body is read
 * up to `maxResponseBytes` and shown up to `maxOutputChars`, with the length reported.
 */
export function httpRequestTool(env: ToolEnv): Tool {
  const o = env.options;
  return builtinTool({
    name: 'http_request',
    description: `Send an HTTP(S) request and return the status, headers and body (text bodies up to ${o.maxOutputChars} characters, with the full length). `
      + `Follows up to ${o.maxRedirects} redirects, each checked by the sandbox. Status 400 and above is an error result. Times out after ${o.httpTimeoutMs} ms.`,
    args,
    describe: {
      url: 'Absolute http:// or https:// URL.',
      method: 'Default GET.',
      headers: 'Request headers, name to value. Host and framing headers are set automatically.',
      body: 'Request body (not with GET or HEAD).',
    },
    timeoutMs: o.httpTimeoutMs + 10_000,
    actions: (a) => [{ kind: 'http', url: normalized(a.url), method: a.method ?? 'GET' }],
    execute: later((r) => r.httpRequest, env),
  });
}
