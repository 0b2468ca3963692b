/**
 * `parse-prometheus-text-format` (a port of the Prometheus Python client's parser, with
 * prom2json's output shape) ships no types. What it returns: one entry per family; values stay
 * strings as written. A histogram's or summary's samples are folded into one object keyed by
 * `le` (or `quantile`), so a labelled histogram's series are not told apart.
 */
declare module 'parse-prometheus-text-format' {
  export interface PromSample {
    value?: string;
    labels?: Record<string, string>;
    timestamp_ms?: string;
    buckets?: Record<string, string>;
    quantiles?: Record<string, string>;
    count?: string;
    sum?: string;
  }
  export interface PromFamily {
    name: string;
    /** '' when the family has no HELP line. */
    help: string;
    type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    metrics: PromSample[];
  }
  /** Throws `InvalidLineError` on a line it cannot read. */
  export default function parsePrometheusTextFormat(text: string): PromFamily[];
}
