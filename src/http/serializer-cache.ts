/**
 * Response serializers compiled once per process, not once per app.
 *
 * Fastify compiles a fast-json-stringify function for every (route, status) of every app it
 * builds. Herald's response schemas (a delivery with its attempts and evidence, a notification
 * with its deliveries) are large: compiling them cost ~140 ms per app (buildApp + ready + close:
 * 225 ms, against 86 ms with no compilation, mean of 8 on this machine). One process builds one
 * app, but the test suite builds one per harness, thousands of times.
 *
 * This factory wraps Fastify's own (`@fastify/fast-json-stringify-compiler`), so shared schemas
 * (`problem#`, `Delivery#`, ...) still resolve exactly as before, and reuses a compiled function
 * whenever the same route schema comes again with the same shared schemas and options. Keys are
 * the schemas' JSON text, not object identity: Fastify clones the shared schemas per app, and
 * a route may build its schema objects afresh each time. A serializer depends only on the
 * schema, the shared schemas and the options, never on the route's method or url, so reusing it
 * across apps gives byte-identical answers.
 */
import SerializerSelector from '@fastify/fast-json-stringify-compiler';

type Compiler = SerializerSelector.SerializerCompiler;
type Serialize = SerializerSelector.Serializer;
type RouteSchema = SerializerSelector.RouteDefinition & { contentType?: string };

/** One compiler per distinct (shared schemas, options); each keeps its compiled functions. */
const compilers = new Map<string, { compile: Compiler; compiled: Map<string, Serialize> }>();
const buildFastifySerializer = SerializerSelector();

/** A `compilersFactory.buildSerializer` for Fastify's options: same answers, compiled once. */
export function cachedSerializerFactory(externalSchemas?: unknown, options?: SerializerSelector.Options): Compiler {
  const sharedKey = stableKey((externalSchemas ?? {}) as Record<string, unknown>) + '\u0000' + JSON.stringify(options ?? null);
  let entry = compilers.get(sharedKey);
  if (entry === undefined) {
    entry = { compile: buildFastifySerializer(externalSchemas, options), compiled: new Map() };
    compilers.set(sharedKey, entry);
  }
  const { compile, compiled } = entry;
  return (route: RouteSchema) => {
    const key = `${route.httpStatus}\u0000${route.contentType ?? ''}\u0000${JSON.stringify(route.schema)}`;
    let serialize = compiled.get(key);
    if (serialize === undefined) {
      serialize = compile(route);
      compiled.set(key, serialize);
    }
    return serialize;
  };
}

/** The shared schemas as text, in $id order, so two apps that added the same ones agree. */
function stableKey(externalSchemas: Record<string, unknown>): string {
  return Object.keys(externalSchemas)
    .sort()
    .map((id) => `${id}=${JSON.stringify(externalSchemas[id])}`)
    .join('\u0000');
}
