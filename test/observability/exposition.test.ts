/** The strict exposition reader of exposition.ts refuses what Prometheus refuses, so the endpoint tests are not vacuous. */
import { Gauge, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { parseExposition } from './exposition.js';

describe('parseExposition', () => {
  it("reads prom-client's own output, escapes included", async () => {
    const registry = new Registry();
    const g = new Gauge({ name: 'x_gauge', help: 'A gauge with a \\ backslash', labelNames: ['l'], registers: [registry] });
    g.set({ l: 'a "quoted" \\ value' }, 1.5);
    const f = parseExposition(await registry.metrics()).get('x_gauge')!;
    expect(f).toEqual({
      name: 'x_gauge',
      help: 'A gauge with a \\ backslash',
      type: 'gauge',
      samples: [{ name: 'x_gauge', labels: { l: 'a "quoted" \\ value' }, value: 1.5 }],
    });
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
    ['a histogram without +Inf', '# TYPE h histogram\nh_bucket{le="1"} 1\nh_sum 1\nh_count 1\n'],
    ['a histogram whose buckets are not cumulative', '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n'],
    ['a histogram whose count is not its +Inf bucket', '# TYPE h histogram\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 1\n'],
    ['a histogram without _sum', '# TYPE h histogram\nh_bucket{le="+Inf"} 1\nh_count 1\n'],
    ['a bucket without le', '# TYPE h histogram\nh_bucket 1\nh_sum 1\nh_count 1\n'],
  ])('refuses %s', (_why, text) => {
    expect(() => parseExposition(text)).toThrow(/exposition line/);
  });

  it("reads prom-client's histograms: buckets per label set, _sum and _count", async () => {
    const registry = new Registry();
    const h = new Histogram({ name: 'x_seconds', help: 'h', labelNames: ['l'], buckets: [0.1, 1], registers: [registry] });
    h.observe({ l: 'a' }, 0.05);
    h.observe({ l: 'a' }, 5);
    const f = parseExposition(await registry.metrics()).get('x_seconds')!;
    expect(f.type).toBe('histogram');
    expect(f.samples.map((x) => [x.name, x.labels.le ?? null, x.value])).toEqual([
      ['x_seconds_bucket', '0.1', 1],
      ['x_seconds_bucket', '1', 1],
      ['x_seconds_bucket', '+Inf', 2],
      ['x_seconds_sum', null, 5.05],
      ['x_seconds_count', null, 2],
    ]);
  });
});
