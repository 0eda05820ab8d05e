// report_low_stock: per branch, each low product's stock on hand against its reorder level.
import { counted } from '../../../core/counted.js';
import { barChart } from '../chart.js';
import { el, section } from '../dom.js';

interface Item {
  product_id: number;
  name: string;
  branch_id: number;
  on_hand: string;
  reorder_level: string;
  short_by: string;
}

interface LowStock {
  branches: { branch_id: number; branch: string }[];
  items: Item[];
}

export function lowStockCharts(root: HTMLElement, data: LowStock): (() => void)[] {
  root.append(el('h1', {}, 'Low stock per branch'));
  const undo: (() => void)[] = [];
  for (const b of data.branches) {
    const items = data.items.filter((i) => i.branch_id === b.branch_id);
    const part = section(`${b.branch}: ${items.length === 0 ? 'nothing low' : `${counted(items.length, 'product')} low`}`);
    root.append(part);
    if (items.length === 0) continue;
    undo.push(
      barChart(part, {
        title: `Stock at ${b.branch} against reorder level`,
        by: 'Product',
        labels: items.map((i) => i.name),
        series: [
          { label: 'On hand', values: items.map((i) => i.on_hand) },
          { label: 'Reorder level', values: items.map((i) => i.reorder_level) },
        ],
        more: [{ label: 'Short by', values: items.map((i) => i.short_by) }],
        sideways: true,
      }),
    );
  }
  return undo;
}
