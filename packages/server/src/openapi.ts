import { z } from 'zod';

/** What the OpenAPI document says about one route. */
export interface RouteDoc {
  method: 'get' | 'post' | 'delete';
  /** Hono path (`/agents/:agentId`), written as `{agentId}` in the document. */
  path: string;
  summary: string;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** Status → description; `text/event-stream` responses say so in the description. */
  responses: Record<number, string>;
  /** The route streams Server-Sent Events when asked (`Accept: text/event-stream`). */
  sse?: boolean;
}

const problemSchema = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail', 'code'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string' },
    requestId: { type: 'string' },
  },
};

/** An OpenAPI 3.1 document of the routes (JSON Schemas from their zod schemas). */
export function openApiDocument(routes: readonly RouteDoc[], info: { title: string; version: string }) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    const parameters: unknown[] = [...route.path.matchAll(/:(\w+)/g)].map(([, name]) => ({
      name,
      in: 'path',
      required: true,
      schema: { type: 'string', pattern: '^(?!\\.\\.?$)[A-Za-z0-9_.~-]{1,128}$' },
    }));
    if (route.query) {
      const schema = z.toJSONSchema(route.query, { io: 'input', unrepresentable: 'any' }) as {
        properties?: Record<string, unknown>;
        required?: string[];
      };
      for (const [name, s] of Object.entries(schema.properties ?? {}))
        parameters.push({ name, in: 'query', required: schema.required?.includes(name) ?? false, schema: s });
    }
    const responses: Record<string, unknown> = {};
    for (const [status, description] of Object.entries(route.responses))
      responses[status] =
        Number(status) >= 400
          ? { description, content: { 'application/problem+json': { schema: problemSchema } } }
          : { description };
    (paths[path] ??= {})[route.method] = {
      summary: route.summary,
      ...(parameters.length ? { parameters } : {}),
      ...(route.body
        ? {
            requestBody: {
              required: true,
              content: {
                'application/json': {
                  schema: z.toJSONSchema(route.body, { io: 'input', unrepresentable: 'any' }),
                },
              },
            },
          }
        : {}),
      responses,
      ...(route.sse ? { 'x-agentkit-sse': true } : {}),
    };
  }
  return {
    openapi: '3.1.0',
    info,
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    security: [{ bearer: [] }],
    paths,
  };
}
