/**
 * A setting declared once. A configuration section is a TypeBox schema: the JSON Schema a file
 * is validated against (and the published `herald-config.schema.json` is written from), each
 * setting's default as its `default` keyword, and the TypeScript types, all from that one
 * declaration (docs/architecture.md, "config/": how a new option is added).
 *
 * Two views of one schema:
 * - `Static<S>`: the section as a file may say it (every optional setting may be absent);
 * - `Settled<S>`: the section after `settle`: a setting with a default always present, one
 *   without a default present as `null` when the file leaves it out. Code reads this view, so
 *   it never needs a fallback of its own (`?? 64`) that could drift from the schema.
 */
import { CloneType, Type, type Static, type TArray, type TObject, type TOptional, type TSchema, type TUnsafe } from '@sinclair/typebox';

/** A schema whose `default` keyword holds a value of its own type. */
export type TDefaulted<T extends TSchema> = T & { default: Static<T> };

/**
 * An optional setting with its default: the file may leave it out, and `settle` fills it in. A
 * number, string or boolean default is also said at the end of the description ("Default 64."),
 * so a person reading the published schema sees it without a second copy to keep in step.
 */
export function withDefault<T extends TSchema>(schema: T, value: Static<T>): TOptional<TDefaulted<T>> {
  const said = ['number', 'string', 'boolean'].includes(typeof value) && typeof schema.description === 'string';
  const options = said ? { default: value, description: `${schema.description as string} Default ${String(value)}.` } : { default: value };
  return Type.Optional(CloneType({ ...schema, ...options })) as unknown as TOptional<TDefaulted<T>>;
}

/**
 * A string that must be one of `values`, as a JSON Schema `enum` (not TypeBox's `anyOf` of
 * literals): the validator then says "must be one of a, b, c", as Herald's messages always have.
 */
export function oneOf<const V extends readonly string[]>(values: V, options: { description?: string } = {}): TUnsafe<V[number]> {
  return Type.Unsafe<V[number]>({ ...options, enum: [...values] });
}

/** A section object: no setting the schema does not name (a typo is an error, not ignored). */
export function section<P extends Record<string, TSchema>>(properties: P, options: { description?: string } = {}): TObject<P> {
  return Type.Object(properties, { ...options, additionalProperties: false });
}

/** A map from an id (a tenant's, an API key's: 1-200 characters) to a value of `value`'s schema, each id its own; empty by default. */
export function byId<T extends TSchema>(value: T, description: string): TOptional<TDefaulted<TUnsafe<Record<string, Static<T>>>>> {
  return withDefault(
    Type.Unsafe<Record<string, Static<T>>>({ type: 'object', propertyNames: { minLength: 1, maxLength: 200 }, additionalProperties: value, description }),
    {},
  );
}

type SettledProperty<S> = S extends { default: unknown } ? Settled<S> : S extends TOptional<TSchema> ? Settled<S> | null : Settled<S>;

/** The settled value of a schema: every setting present, its default or `null` (see the header). */
export type Settled<S> =
  S extends TObject<infer P>
    ? { [K in keyof P]-?: SettledProperty<P[K]> }
    : S extends TArray<infer I>
      ? Array<Settled<I>>
      : S extends TSchema
        ? Static<S>
        : never;

/** An intersection shown as one object type (editors then show the fields, not the parts). */
type Flat<T> = { [K in keyof T]: T[K] } & {};

/** The value as a file may say it, with the defaulted settings filled in (optional ones stay optional). */
export type Defaulted<S> =
  S extends TObject<infer P>
    ? Flat<
        { [K in keyof P as P[K] extends { default: unknown } ? K : P[K] extends TOptional<TSchema> ? never : K]-?: Defaulted<P[K]> } & {
          [K in keyof P as P[K] extends { default: unknown } ? never : P[K] extends TOptional<TSchema> ? K : never]?: Defaulted<P[K]>;
        }
      >
    : S extends TArray<infer I>
      ? Array<Defaulted<I>>
      : S extends TSchema
        ? Static<S>
        : never;

/** `value` (already validated) with the schema's defaults filled in; a copy, `value` is not changed. */
export function withDefaults<S extends TSchema>(schema: S, value: unknown): Defaulted<S> {
  return fill(schema, value ?? {}, false) as Defaulted<S>;
}

/** `value` (already validated) settled: defaults filled in, every other absent setting `null`. */
export function settle<S extends TSchema>(schema: S, value: unknown): Settled<S> {
  return fill(schema, value ?? {}, true) as Settled<S>;
}

/**
 * Fills in what the file leaves out, as a copy. A default is taken only where the file says
 * nothing: an object the file gives is kept as it is and filled setting by setting, never merged
 * with the object's own default (TypeBox's `Value.Default` merges them, but `limits.velocity.otp:
 * {}` must mean "no rules", not the default rules).
 */
function fill(schema: TSchema, value: unknown, nulls: boolean): unknown {
  if (value === undefined) return 'default' in schema ? fill(schema, structuredClone(schema.default), nulls) : undefined;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const items = (schema as Partial<TArray>).items;
    return value.map((v: unknown) => (items ? fill(items, v, nulls) : structuredClone(v)));
  }
  const properties = (schema as Partial<TObject>).properties;
  const out: Record<string, unknown> = structuredClone(value as Record<string, unknown>);
  for (const [key, property] of Object.entries(properties ?? {})) {
    const filled = fill(property, out[key], nulls);
    if (filled !== undefined) out[key] = filled;
    else if (nulls) out[key] = null;
  }
  return out;
}

/** The JSON Schema document of a TypeBox schema: plain JSON, without TypeBox's symbol keys. */
export function jsonSchemaOf(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}
