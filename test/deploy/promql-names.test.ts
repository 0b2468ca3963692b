/**
 * The PromQL name lexer the deploy/ tests rely on: it finds every metric an expression selects,
 * and nothing else (functions, aggregations, label names, label lists, strings, durations,
 * keywords, Grafana variables, comments), and it refuses what it cannot read rather than
 * reading nothing.
 */
import { describe, expect, it } from 'vitest';
import { labelNames, metricNames } from './promql-names.js';

describe('metricNames', () => {
  it.each([
    ['herald_deliveries_unknown', ['herald_deliveries_unknown']],
    ['rate(herald_api_attempts_total{channel="sms", purpose=~"otp|alert"}[5m])', ['herald_api_attempts_total']],
    // An aggregation with its label list before the body, and a label list that holds a metric's name.
    ['sum by (le, herald_deliveries) (rate(herald_x_bucket[$__rate_interval]))', ['herald_x_bucket']],
    ['histogram_quantile(0.99, sum(rate(herald_x_bucket{job=~"$job"}[5m])) by (le, purpose))', ['herald_x_bucket']],
    ['max without (instance) (a) > on (device) group_left (lane) max without (instance) (b)', ['a', 'b']],
    ['a * on (x) group_left b', ['a', 'b']],
    ['a and bool b unless c or d', ['a', 'b', 'c', 'd']],
    ['SUM BY (x) (a) AND b', ['a', 'b']],
    // A string that looks like a metric is a string.
    ['label_replace(up, "dst", "herald_fake", "src", "(.*)")', ['up']],
    ["count_values('herald_fake', a)", ['a']],
    ['{__name__="herald_x", job="y"}', ['herald_x']],
    ['{"herald.dotted", job="y"}', ['herald.dotted']],
    ['a offset 5m', ['a']],
    ['a offset 1h30m > 1e3', ['a']],
    ['0x1F + b - .5 * 2.5e-3', ['b']],
    ['time() - c @ start()', ['c']],
    ['max_over_time(a[1h:5m]) > b', ['a', 'b']],
    ['a > 5 # herald_commented\n or b', ['a', 'b']],
    ['topk(5, a) / ignoring (x) b', ['a', 'b']],
    ['a{job="$job", instance=~"${instance:regex}"} / [[legacy]]', ['a']],
    ['a + a{x="1"}', ['a']],
    ['vector(1)', []],
    ['a:recorded:rate5m', ['a:recorded:rate5m']],
  ])('%s → %j', (expr, names) => {
    expect(metricNames(expr)).toEqual(names);
  });

  it.each([
    ['rate(a{channel="sms", purpose=~"otp|alert"}[5m])', ['channel', 'purpose']],
    ['sum by (le, provider_account) (rate(a_bucket{job="$job"}[1m]))', ['le', 'provider_account', 'job']],
    ['max without (instance) (a) > on (device) group_left (lane) b', ['instance', 'device', 'lane']],
    ['a * on (x) group_left b', ['x']],
    ['{__name__="a", job="y"}', ['job']],
    ['label_replace(a, "dst", "v", "src", "(.*)")', []],
    ['sum by ("quoted") (a)', ['quoted']],
  ])('labels of %s → %j', (expr, labels) => {
    expect(labelNames(expr)).toEqual(labels);
  });

  it.each([
    ['herald_made_up(x)', /not a PromQL function/],
    ['sum by (le purpose) (a)', /not a label name/],
    ['{__name__=~"herald_.*"}', /by pattern/],
    ['sum(rate(a[5m])', /unbalanced/],
    ['a)', /unbalanced/],
    ['a{job="x}', /unterminated/],
    ['a{job}', /matcher operator/],
  ])('refuses %s', (expr, error) => {
    expect(() => metricNames(expr)).toThrow(error);
  });
});
