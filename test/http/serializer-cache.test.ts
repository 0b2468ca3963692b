import { describe, expect, it } from 'vitest';
import { cachedSerializerFactory } from '../../src/http/serializer-cache.js';

const shared = () => ({
  Thing: { $id: 'Thing', type: 'object', properties: { name: { type: 'string' } }, additionalProperties: false },
});
const route = (schema: unknown, httpStatus = '200') => ({ schema, method: 'GET', url: '/x', httpStatus });
const answer = () => ({ type: 'object', properties: { thing: { $ref: 'Thing#' }, n: { type: 'integer' } } });

describe('cachedSerializerFactory', () => {
  it('compiles a route schema once across apps, even when each app clones the shared schemas', () => {
    const first = cachedSerializerFactory(shared(), {})(route(answer()));
    const second = cachedSerializerFactory(shared(), {})(route(answer()));
    expect(second).toBe(first);
    expect(first({ thing: { name: 'a', extra: 1 }, n: 2, dropped: true })).toBe('{"thing":{"name":"a"},"n":2}');
  });

  it('keeps serializers apart when the status, the schema or the shared schemas differ', () => {
    const compile = cachedSerializerFactory(shared(), {});
    const ok = compile(route(answer()));
    expect(compile(route(answer(), '201'))).not.toBe(ok);
    expect(compile(route({ type: 'object', properties: { n: { type: 'string' } } }))).not.toBe(ok);
    const otherShared = { Thing: { ...shared().Thing, properties: { label: { type: 'string' } } } };
    const other = cachedSerializerFactory(otherShared, {})(route(answer()));
    expect(other).not.toBe(ok);
    expect(other({ thing: { name: 'a', label: 'b' }, n: 1 })).toBe('{"thing":{"label":"b"},"n":1}');
  });
});
