import type { RunOrigin } from '@oryxos/kernel';
import type { Context } from 'hono';
import { routePath } from 'hono/route';
import { headerOf } from './incoming.ts';
import { requestIdOf, type WebEnv } from './request-log.ts';

/** The W3C trace context headers a client may send to have its trace continued. */
const TRACE_HEADERS = ['traceparent', 'tracestate'] as const;

/**
 * What a request tells the run it starts, as data (the web plugin has no tracing code): its route
 * and method (`POST /api/sessions/:id/messages`, named with OpenTelemetry's HTTP attributes),
 * when it came, and the trace context it carried. A tracing plugin makes the request a span and
 * the run's span its child, in the caller's trace when it sent a `traceparent`.
 *
 * @example
 * runner.invoke({ ...run, origin: originOf(c) });
 */
export function originOf(c: Context<WebEnv>, startedAt = Date.now()): RunOrigin {
  const route = routePath(c, -1);
  const carrier: Record<string, string> = {};
  for (const name of TRACE_HEADERS) {
    const value = headerOf(c, name);
    if (value) carrier[name] = value;
  }
  return {
    name: `${c.req.method} ${route}`,
    startedAt,
    attributes: { 'http.request.method': c.req.method, 'http.route': route, 'url.path': c.req.path, 'oryx.request.id': requestIdOf(c) },
    ...(Object.keys(carrier).length ? { carrier } : {}),
  };
}
