// The answer tools' pictures: which report a result is, told by its fields (each report's own), then drawn.
import type { ToolResult } from './connect.js';
import { startView } from './connect.js';
import { el } from './dom.js';
import { lowStockCharts } from './reports/low-stock.js';
import { owedCharts } from './reports/owed.js';
import { receivedCharts } from './reports/received.js';
import { salesCharts } from './reports/sales.js';

type Draw = (root: HTMLElement, data: Record<string, unknown>, args: Record<string, unknown>) => (() => void)[];

function reportOf(data: Record<string, unknown>): Draw {
  if ('aged' in ((data.currencies as object[] | undefined)?.[0] ?? {}) || 'invoices_left_out' in data) return owedCharts as Draw;
  if ('payments' in data) return receivedCharts as Draw;
  if ('branches' in data) return lowStockCharts as Draw;
  return salesCharts as Draw;
}

function render(root: HTMLElement, result: ToolResult, _app: unknown, args: Record<string, unknown>): () => void {
  const data = result.structuredContent as Record<string, unknown>;
  const undo = reportOf(data)(root, data, args);
  // The mirror could not be brought up to date: said under the title, before any figure.
  if (typeof data.warning === 'string')
    root.querySelector('h1')?.after(el('p', { class: 'notice', role: 'alert' }, `Not up to date: ${data.warning}.`));
  if (typeof data.as_of === 'string') root.append(el('p', { class: 'quiet' }, `As of ${data.as_of}.`));
  return () => {
    for (const u of undo) u();
  };
}

startView('invoicing-mcp report charts', render);
