/** A setting declared once: the default fills only what a file leaves out; `settle` says null for the rest. */
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { jsonSchemaOf, oneOf, section, settle, withDefault, withDefaults } from '../../src/schema/setting.js';

const Rule = section({ max: Type.Integer(), window_s: Type.Integer() });
const Example = section({
  size: withDefault(Type.Integer({ description: 'How many.' }), 64),
  name: Type.Optional(Type.String()),
  mode: withDefault(oneOf(['fast', 'safe'], { description: 'Which way.' }), 'safe'),
  rule: withDefault(section({ per_destination: Type.Optional(Rule), per_recipient: Type.Optional(Rule) }), {
    per_destination: { max: 5, window_s: 600 },
  }),
  nested: withDefault(section({ on: withDefault(Type.Boolean(), true), note: Type.Optional(Type.String()) }), {}),
  list: withDefault(Type.Array(section({ url: Type.String(), secret: Type.Optional(Type.String()) })), []),
});

describe('settle', () => {
  it('fills every default, a whole section from `{}`, and says null for a setting without one', () => {
    expect(settle(Example, undefined)).toEqual({
      size: 64,
      name: null,
      mode: 'safe',
      rule: { per_destination: { max: 5, window_s: 600 }, per_recipient: null },
      nested: { on: true, note: null },
      list: [],
    });
  });

  it("keeps what the file says; an object it gives replaces the object's default instead of merging with it", () => {
    const s = settle(Example, { size: 1, rule: {}, nested: { on: false }, list: [{ url: 'https://x' }] });
    expect(s).toEqual({
      size: 1,
      name: null,
      mode: 'safe',
      rule: { per_destination: null, per_recipient: null },
      nested: { on: false, note: null },
      list: [{ url: 'https://x', secret: null }],
    });
  });

  it('returns a copy: neither the value nor the schema default is changed by what the caller does with it', () => {
    const raw = { nested: { on: false } };
    const a = settle(Example, raw);
    a.nested.on = true;
    a.rule.per_destination!.max = 99;
    expect(raw).toEqual({ nested: { on: false } });
    expect(settle(Example, {}).rule.per_destination).toEqual({ max: 5, window_s: 600 });
  });
});

describe('withDefaults', () => {
  it('fills the defaults and leaves a setting without one absent', () => {
    const d = withDefaults(Example, { name: 'n' });
    expect(d).toMatchObject({ size: 64, name: 'n', mode: 'safe', nested: { on: true } });
    expect('note' in d.nested).toBe(false);
  });
});

describe('the JSON Schema', () => {
  it('carries the default as a keyword and says it at the end of the description; an enum is an enum', () => {
    const json = jsonSchemaOf(Example) as { properties: Record<string, Record<string, unknown>>; additionalProperties: unknown };
    expect(json.additionalProperties).toBe(false);
    expect(json.properties.size).toEqual({ type: 'integer', default: 64, description: 'How many. Default 64.' });
    expect(json.properties.mode).toEqual({ enum: ['fast', 'safe'], default: 'safe', description: 'Which way. Default safe.' });
    expect(json.properties.nested!.default).toEqual({});
    expect(Object.getOwnPropertySymbols(json)).toEqual([]);
  });
});
