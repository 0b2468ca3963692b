/** The strict exposition reader of exposition.ts refuses what Prometheus refuses, so the endpoint tests are not vacuous. */
import { Gauge, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { parseExposition } from './exposition.js';

describe('parseExposition', () => {
  it("reads prom-client's own output, escapes included", async () => {
    const registry = new Registry();
    const g = new Gauge({ name: 'x_gauge', help: 'A gauge with a \\ backslash', labelNames: ['l'], registers: [registry] });
    g.set({ l: 'a "quoted" \\ value' }, 1.5);
    const f = parseExposition(await registry.metrics()).get('x_gauge')!;
    expect(f).toEqual({ name: 'x_gauge', help: 'A gauge with a \\ backslash', type: 'gauge', samples: [{ labels: { l: 'a "quoted" \\ value' }, value: 1.5 }] });
  });

  it.each([
    ['a sample before its TYPE', 'x 1\n'],
    ['an unquoted label value', '# TYPE x gauge\nx{a=b} 1\n'],
    ['a bad escape', '# TYPE x gauge\nx{a="\\t"} 1\n'],
    ['a non-numeric value', '# TYPE x gauge\nx one\n'],
    ['a duplicate series', '# TYPE x gauge\nx{a="1"} 1\nx{a="1"} 2\n'],
    ['an unknown type', '# TYPE x meter\n'],
    ['a bad metric name', '# TYPE 1x gauge\n'],
    ['no final newline', '# TYPE x gauge\nx 1'],
  ])('refuses %s', (_why, text) => {
    expect(() => parseExposition(text)).toThrow(/exposition line/);
  });
});
