/**
 * The app's route table, read from Fastify itself (`printRoutes`), so a route added to any
 * plugin is fuzzed without anyone listing it here. The OpenAPI document adds each documented
 * route's body schema and parameters (hidden routes, such as the device API, have none).
 */
import type { FastifyInstance } from 'fastify';

export interface RouteEntry {
  method: string;
  /** Fastify's pattern: `/v1/notifications/:id`, `/dashboard/*`. */
  url: string;
  /** The JSON schema of the request body, when the OpenAPI document has one. */
  bodySchema: unknown;
  /** The body's media types as documented (application/json unless said otherwise). */
  mediaTypes: string[];
  /** Query parameters the OpenAPI document names. */
  query: string[];
}

/**
 * Parses `printRoutes({ commonPrefix: false })`: one node per line, four columns per depth,
 * a node's path is its parent's path plus its own segment, and `(GET, HEAD)` lists the methods.
 */
export function routesOf(app: FastifyInstance): RouteEntry[] {
  const tree = app.printRoutes({ commonPrefix: false });
  const stack: string[] = [];
  const found: { method: string; url: string }[] = [];
  for (const line of tree.split('\n')) {
    const m = /^([│ ├└─]*?)(?:[├└]── )(.*?)(?: \(([A-Z, ]+)\))?$/u.exec(line);
    if (!m) continue;
    const depth = m[1]!.length / 4;
    const parent = depth === 0 ? '' : stack[depth - 1]!;
    // The tree prints a wildcard child of `/dashboard` as `*`; the route is `/dashboard/*`.
    const path = parent + (m[2] === '*' && !parent.endsWith('/') ? '/*' : m[2]!);
    stack[depth] = path;
    stack.length = depth + 1;
    for (const method of (m[3] ?? '').split(', ').filter(Boolean)) found.push({ method, url: path });
  }
  const doc = app.swagger() as { paths?: Record<string, Record<string, any>> };
  for (const r of found) {
    if (!app.hasRoute({ method: r.method, url: r.url })) throw new Error(`route table parse: ${r.method} ${r.url} is not a route`);
  }
  return found.map(({ method, url }) => {
    const op = doc.paths?.[url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')]?.[method.toLowerCase()];
    const content: Record<string, { schema?: unknown }> = op?.requestBody?.content ?? {};
    const mediaTypes = Object.keys(content);
    return {
      method,
      url,
      bodySchema: mediaTypes[0] === 'application/json' ? content['application/json']!.schema : undefined,
      mediaTypes: mediaTypes.length ? mediaTypes : ['application/json'],
      query: ((op?.parameters ?? []) as { in: string; name: string }[]).filter((p) => p.in === 'query').map((p) => p.name),
    };
  });
}

/** The names of a pattern's path parameters, in order (`*` is called `*`). */
export function paramsOf(url: string): string[] {
  return [...url.matchAll(/:([A-Za-z0-9_]+)|\*/g)].map((m) => m[1] ?? '*');
}
