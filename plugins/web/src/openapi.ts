import type { RequestType, RouteSpec } from './routes.ts';
import { ErrorResponse } from './schemas.ts';

export type OpenApiDocument = Record<string, any>;

/** JSON Schema of a shape (OpenAPI 3.1 schemas are JSON Schema 2020-12). */
export function jsonSchemaOf(t: RequestType): Record<string, unknown> {
  return t.json();
}

/**
 * Builds the OpenAPI 3.1 document from the route specs: parameters from the query types,
 * request bodies from the body types (the very objects that validate requests), responses
 * from the declared response types.
 */
export function buildOpenApi(routes: RouteSpec[], info: { title: string; version: string; auth: boolean }): OpenApiDocument {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const parameters: Record<string, unknown>[] = [];
    for (const [name, description] of Object.entries(route.params ?? {})) {
      parameters.push({ name, in: 'path', required: true, description, schema: { type: 'string' } });
    }
    if (route.query) {
      const q = jsonSchemaOf(route.query) as { properties?: Record<string, unknown>; required?: string[] };
      for (const [name, schema] of Object.entries(q.properties ?? {})) {
        parameters.push({ name, in: 'query', required: q.required?.includes(name) ?? false, schema });
      }
    }
    for (const [name, description] of Object.entries(route.headers ?? {})) {
      parameters.push({ name, in: 'header', required: false, description, schema: { type: 'string' } });
    }
    const responses: Record<string, unknown> = {};
    for (const [status, r] of Object.entries(route.responses)) {
      const type = r.contentType ?? 'application/json';
      const schema = r.schema === ErrorResponse ? { $ref: '#/components/schemas/Error' } : r.schema && jsonSchemaOf(r.schema);
      responses[status] = {
        description: r.description,
        ...(schema || type !== 'application/json' ? { content: { [type]: schema ? { schema } : {} } } : {}),
      };
    }
    paths[path] ??= {};
    paths[path]![route.method] = {
      operationId: `${route.method}${path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_, ch: string | undefined) => (ch ?? '').toUpperCase())}`,
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      tags: [route.tag],
      ...(route.auth === false ? { security: [] } : {}),
      ...(parameters.length ? { parameters } : {}),
      ...(route.body ? {
        requestBody: { required: true, content: { 'application/json': { schema: jsonSchemaOf(route.body) } } },
      } : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: info.title,
      version: info.version,
      description: 'The OryxOS REST channel. Errors are `{"error": {"code", "message", "hint"}}`; every response carries `x-request-id`.',
    },
    ...(info.auth ? { security: [{ bearerAuth: [] }] } : {}),
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } },
      schemas: { Error: jsonSchemaOf(ErrorResponse) },
    },
    paths,
  };
}
