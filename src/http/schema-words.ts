/**
 * The few TypeBox pieces every response schema is written with (response-schemas.ts and its
 * siblings): a field's type with its exact nullability, a closed vocabulary, and a `$ref` to a
 * schema registered on the app by `$id`.
 */
import { Type, type TSchema } from '@sinclair/typebox';

export const text = Type.String();
export const textOrNull = Type.Union([Type.String(), Type.Null()]);
export const time = Type.String({ format: 'date-time' });
export const timeOrNull = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);
export const intOrNull = Type.Union([Type.Integer(), Type.Null()]);
/** A count: fast-json-stringify writes an `integer` field truncated, so only whole numbers get it. */
export const count = Type.Integer({ minimum: 0 });
/** A rate or a ratio: any number (an `integer` schema would truncate 0.5 msg/s to 0). */
export const numberOrNull = Type.Union([Type.Number(), Type.Null()]);

/** One of a closed list of words (a vocabulary of the domain), as a string enum. */
export const oneOf = (values: readonly string[], description?: string) =>
  Type.Unsafe<string>({ type: 'string', enum: [...values], ...(description ? { description } : {}) });

export const orNull = (s: TSchema) => Type.Union([s, Type.Null()]);

/** A `$ref` to a schema registered on the app, as Fastify resolves it (`<$id>#`). */
export const ref = (id: string) => Type.Unsafe({ $ref: `${id}#` });

/** A page of items with the cursor of the next one (null on the last page). */
export const pageOfRefs = (itemId: string, $id: string) =>
  Type.Object({ items: Type.Array(ref(itemId)), next_cursor: textOrNull }, { $id, additionalProperties: false });
