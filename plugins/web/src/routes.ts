import type { type } from 'arktype';
import type { Context, Hono } from 'hono';
import { check, parseJson, readBody } from './body.ts';
import { incomingOf } from './incoming.ts';
import type { WebEnv } from './request-log.ts';

/** What the document says about one response of a route. */
export interface ResponseSpec {
  description: string;
  schema?: type.Any;
  /** Default application/json; `text/event-stream` and `text/html` for streams and pages. */
  contentType?: string;
}

/**
 * One endpoint: the single description both the router and `GET /openapi.json` read, so the
 * validation that runs and the document that is served come from the same objects.
 */
export interface RouteSpec<B extends type.Any = type.Any, Q extends type.Any = type.Any> {
  method: 'get' | 'post' | 'delete';
  /** Hono path syntax: `/api/sessions/:id`. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  /** False for the one route that never needs the token (`/health`). Default true. */
  auth?: boolean;
  params?: Record<string, string>;
  query?: Q;
  body?: B;
  /** Raw body limit in bytes, checked before parsing. */
  bodyLimit?: number;
  /** Extra headers the route reads. */
  headers?: Record<string, string>;
  responses: Record<number, ResponseSpec>;
}

type Out<T extends type.Any, Else> = [T] extends [never] ? Else : T['infer'];

/** What a handler gets: the validated body and query. */
export interface RouteInput<B extends type.Any, Q extends type.Any> { body: Out<B, undefined>; query: Out<Q, Record<string, string>> }

/**
 * Registers routes on a Hono app from their specs and keeps the specs for the document.
 * Query and body are validated before the handler runs.
 *
 * @example
 * const routes = new RouteTable(app, 32 * 1024);
 * routes.add({ method: 'post', path: '/api/sessions', body: CreateSessionBody, … }, async (c, { body }) => c.json(…, 201));
 */
export class RouteTable {
  readonly specs: RouteSpec[] = [];

  constructor(private readonly app: Hono<WebEnv>, private readonly defaultBodyLimit: number) {}

  add<B extends type.Any = never, Q extends type.Any = never>(
    spec: RouteSpec<B, Q>,
    handler: (c: Context<WebEnv>, input: RouteInput<B, Q>) => Response | Promise<Response>,
  ): void {
    this.specs.push(spec as RouteSpec);
    const limit = spec.bodyLimit ?? this.defaultBodyLimit;
    this.app.on(spec.method.toUpperCase(), spec.path, async (c) => {
      const query = spec.query ? check(spec.query, c.req.query(), 'query') : c.req.query();
      const body = spec.body ? parseJson(await readBody(c.req.raw, limit, incomingOf(c)), spec.body) : undefined;
      return handler(c, { body, query } as RouteInput<B, Q>);
    });
  }
}
