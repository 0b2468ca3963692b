/** A uPlot time-series chart that follows its container's width and is described in text for screen readers. */
import type { JSX } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface Series {
  label: string;
  values: number[];
  /** A CSS colour; each series also has its own dash pattern, so colour is not the only difference. */
  colour: string;
  dash?: number[];
}

export function TimeChart(props: { title: string; times: number[]; series: Series[]; height?: number }): JSX.Element {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const shape = props.series.map((s) => s.label).join('|');

  useEffect(() => {
    const el = box.current!;
    const opts: uPlot.Options = {
      width: Math.max(280, el.clientWidth),
      height: props.height ?? 200,
      legend: { show: true },
      cursor: { drag: { x: false, y: false } },
      // Counts start at 0, and an all-zero series still gets a 0-1 axis instead of uPlot's 0-100.
      scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
      // Counts are whole numbers: no 0.5 ticks.
      axes: [{}, { size: 50, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 100_000, 1_000_000] }],
      series: [{}, ...props.series.map((s) => ({ label: s.label, stroke: s.colour, width: 2, ...(s.dash ? { dash: s.dash } : {}), points: { show: false } }))],
    };
    plot.current = new uPlot(opts, [props.times, ...props.series.map((s) => s.values)], el);
    const resize = new ResizeObserver(() => plot.current?.setSize({ width: Math.max(280, el.clientWidth), height: props.height ?? 200 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
    // Rebuilt only when the set of series changes; new data goes through setData below.
  }, [shape]);

  useEffect(() => {
    plot.current?.setData([props.times, ...props.series.map((s) => s.values)]);
  }, [props.times, props.series]);

  const totals = props.series.map((s) => `${s.label}: ${s.values.reduce((a, b) => a + b, 0)}`).join(', ');
  return (
    <figure class="chart">
      <figcaption>{props.title}</figcaption>
      <div ref={box} class="chart-box" role="img" aria-label={`${props.title}. Totals over the window: ${totals}.`} />
    </figure>
  );
}
