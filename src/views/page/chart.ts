// A bar chart and, under it, the table of its exact figures: Chart.js (tree-shaken to bars) draws the
// picture on a canvas that names itself for assistive technology; the table is what a reader and a screen
// reader read. Colours come from the page's theme, so a redraw follows the host's light or dark.
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from 'chart.js';
import { el, table } from './dom.js';
import { barLength } from './figures.js';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

export interface Series {
  label: string;
  /** Exact decimal strings, one per label. */
  values: string[];
}

export interface Bars {
  title: string;
  /** The table's first column heading. */
  by: string;
  labels: string[];
  series: Series[];
  /** Figures the table gives beside the bars' own (counts, dates). */
  more?: Series[];
  /** Bars along the y axis, for long labels such as product or customer names. */
  sideways?: boolean;
}

const themeColour = (name: string): string => getComputedStyle(document.documentElement).getPropertyValue(name).trim();

/** Appends the chart and its table to parent; returns what destroys the chart. */
export function barChart(parent: HTMLElement, bars: Bars): () => void {
  const canvas = el('canvas', { role: 'img', 'aria-label': `${bars.title}: bar chart; the table below gives every figure` });
  const box = el('div', { class: bars.sideways ? 'chart sideways' : 'chart' }, canvas);
  if (bars.sideways) box.style.height = `${Math.max(160, 28 * bars.labels.length + 60)}px`;
  const columns = [...bars.series, ...(bars.more ?? [])];
  const rows = bars.labels.map((label, i) => [label, ...columns.map((s) => s.values[i] ?? '')]);
  parent.append(
    el(
      'figure',
      {},
      box,
      table(bars.title, [bars.by, ...columns.map((s) => s.label)], rows, (i) => i > 0),
    ),
  );
  const text = themeColour('--chart-text');
  const grid = themeColour('--chart-grid');
  const palette = [themeColour('--chart-1'), themeColour('--chart-2'), themeColour('--chart-3')];
  const chart = new Chart(canvas, {
    type: 'bar',
    data: {
      labels: bars.labels,
      datasets: bars.series.map((s, i) => ({
        label: s.label,
        data: s.values.map(barLength),
        backgroundColor: palette[i % palette.length],
      })),
    },
    options: {
      indexAxis: bars.sideways ? 'y' : 'x',
      animation: false,
      maintainAspectRatio: false,
      color: text,
      scales: {
        x: { ticks: { color: text }, grid: { color: grid } },
        y: { ticks: { color: text }, grid: { color: grid } },
      },
      plugins: {
        legend: { display: bars.series.length > 1, labels: { color: text } },
        // The tooltip shows the exact string, not the number the bar was drawn from.
        tooltip: {
          callbacks: { label: (item) => `${item.dataset.label}: ${bars.series[item.datasetIndex]?.values[item.dataIndex] ?? ''}` },
        },
      },
    },
  });
  return () => chart.destroy();
}
