/**
 * Values that satisfy a JSON schema, as fast-check arbitraries: the subset Herald's route
 * schemas use (type and type lists, enum, properties/required/additionalProperties, items,
 * lengths, bounds, patterns, date-time, propertyNames). Valid bodies reach past validation into
 * the handlers, where a 5xx would hide; the fuzz then mutates them field by field.
 */
import fc from 'fast-check';

type Schema = Record<string, any>;

function stringOf(s: Schema): fc.Arbitrary<string> {
  const minLength = s.minLength ?? 0;
  // Long enough to reach a limit now and then, short enough to stay fast.
  const maxLength = Math.min(s.maxLength ?? 40, 80);
  if (s.format === 'date-time')
    return fc.date({ min: new Date('2026-01-01T00:00:00Z'), max: new Date('2027-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
  if (s.pattern) {
    const re = new RegExp(s.pattern as string, 'u');
    const fits = (v: string) => v.length >= minLength && v.length <= (s.maxLength ?? Infinity);
    let arb: fc.Arbitrary<string>;
    try {
      arb = fc.stringMatching(re);
    } catch {
      arb = fc.string({ minLength, maxLength }).filter((v) => re.test(v));
    }
    // A pattern with an unbounded repeat can overrun maxLength: keep the ones that fit, and
    // fall back to any string of the right length (then the route refuses it, which is fine too).
    return fc.oneof({ weight: 4, arbitrary: arb.filter(fits) }, { weight: 1, arbitrary: fc.string({ minLength, maxLength: Math.max(minLength, maxLength) }) });
  }
  return fc.string({
    minLength,
    maxLength: Math.max(minLength, maxLength),
    unit: fc.oneof(fc.constantFrom('a', 'b', '1', ' ', '-', '@', '.', '+'), fc.string({ minLength: 1, maxLength: 1, unit: 'grapheme' })),
  });
}

/** An arbitrary of values valid against `schema` (best effort: a pattern it cannot honour yields any string). */
export function valueFor(schema: unknown, depth = 0): fc.Arbitrary<unknown> {
  const s = (schema ?? {}) as Schema;
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.oneOf) || Array.isArray(s.anyOf)) return fc.oneof(...((s.oneOf ?? s.anyOf) as unknown[]).map((x) => valueFor(x, depth + 1)));
  const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : s.properties ? ['object'] : ['string', 'integer', 'boolean'];
  const byType = types.map((t): fc.Arbitrary<unknown> => {
    switch (t) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'integer':
        return fc.integer({ min: s.minimum ?? -1_000_000, max: s.maximum ?? 1_000_000_000 });
      case 'number':
        return fc.double({ min: s.minimum ?? -1e9, max: s.maximum ?? 1e9, noNaN: true, noDefaultInfinity: true });
      case 'string':
        return stringOf(s);
      case 'array': {
        if (depth > 6) return fc.constant([]);
        const minLength = s.minItems ?? 0;
        const maxLength = Math.min(s.maxItems ?? 4, Math.max(minLength, 4));
        const item = valueFor(s.items, depth + 1);
        return s.uniqueItems ? fc.uniqueArray(item, { minLength, maxLength, selector: (v) => JSON.stringify(v) }) : fc.array(item, { minLength, maxLength });
      }
      case 'object':
      default: {
        if (depth > 6) return fc.constant({});
        const props: Record<string, Schema> = s.properties ?? {};
        const required: string[] = (s.required ?? []).filter((k: string) => k in props);
        const known = fc.record(Object.fromEntries(Object.entries(props).map(([k, v]) => [k, valueFor(v, depth + 1)])), {
          requiredKeys: required,
        }) as fc.Arbitrary<Record<string, unknown>>;
        if (s.additionalProperties && typeof s.additionalProperties === 'object') {
          const keys = s.propertyNames ? stringOf(s.propertyNames) : fc.string({ minLength: 1, maxLength: 12 });
          const extra = fc.dictionary(keys, valueFor(s.additionalProperties, depth + 1), {
            maxKeys: Math.min(s.maxProperties ?? 3, 3),
            minKeys: s.minProperties ?? 0,
          });
          return fc.tuple(known, extra).map(([a, b]) => ({ ...b, ...a }));
        }
        return known;
      }
    }
  });
  return byType.length === 1 ? byType[0]! : fc.oneof(...byType);
}
