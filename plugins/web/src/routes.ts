import type { Props, Shape } from '@oryxos/schema-kit';
import type { Context, Hono } from 'hono';
import { checkQuery, parseJson, readBody } from './body.ts';
import { incomingOf } from './incoming.ts';
import type { WebEnv } from './request-log.ts';

/** What a body or query is validated with, and what the document says of it: a shape (`@oryxos/schema-kit`). */
export type RequestType = Shape<any>;
/** What a query is validated with: an object shape, whose props say which parameters are numbers. */
export type QueryType = RequestType & { readonly props: Props };

/** What the document says about one response of a route. */
export interface ResponseSpec {
  description: string;
  schema?: Shape<any>;
  /** Default application/json; `text/event-stream` and `text/html` for streams and pages. */
  contentType?: string;
}

/**
 * One endpoint: the single description both the router and `GET /openapi.json` read, so the
 * validation that runs and the document that is served come from the same objects.
 */
export interface RouteSpec<B extends RequestType = RequestType, Q extends QueryType = QueryType> {
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

type Out<T extends RequestType, Else> = [T] extends [never] ? Else : T extends Shape<infer U> ? U : never;

/** What a handler gets: the validated body and query. */
export interface RouteInput<B extends RequestType, Q extends QueryType> { body: Out<B, undefined>; query: Out<Q, Record<string, string>> }

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

  add<B extends RequestType = never, Q extends QueryType = never>(
    spec: RouteSpec<B, Q>,
    handler: (c: Context<WebEnv>, input: RouteInput<B, Q>) => Response | Promise<Response>,
  ): void {
    this.specs.push(spec as RouteSpec);
    const limit = spec.bodyLimit ?? this.defaultBodyLimit;
    const method = spec.method.toUpperCase();
    const { body: bodyType, query: queryType } = spec;
    // A route without a body or query type answers without a promise of its own; its query is parsed only when read.
    if (!bodyType && !queryType) {
      this.app.on(method, spec.path, (c) => handler(c, new PlainInput(c) as unknown as RouteInput<B, Q>));
      return;
    }
    this.app.on(method, spec.path, async (c) => {
      const query = queryType ? checkQuery(queryType, c.req.query()) : c.req.query();
      const body = bodyType ? parseJson(await readBody(c.req.raw, limit, incomingOf(c)), bodyType) : undefined;
      return handler(c, { body, query } as RouteInput<B, Q>);
    });
  }
}

/**
 * The input of a route without a body or query type: the query parsed when read. A class, not an
 * object literal with a getter: V8 gives each such literal a map of its own, which on every
 * request filled the old generation and cost more in garbage collection than the getter saved.
 */
class PlainInput {
  readonly body = undefined;
  constructor(private readonly c: Context<WebEnv>) {}
  get query(): Record<string, string> { return this.c.req.query(); }
}
