// The report_low_stock prompt: tracked products at or below their reorder level, by branch.
import * as z from 'zod/v4';
import { definePrompt } from './define.js';

export const lowStockPrompt = definePrompt({
  name: 'report_low_stock',
  title: 'Report low stock',
  description: "Tracked products at or below their reorder level, by branch (each branch's own stock).",
  tools: ['list_products'],
  args: () => z.object({ branch: z.string().optional().describe('Only this branch, by name') }),
  text: ({ branch }, books) =>
    [
      `Report the products that are low on stock${branch ? ` in the ${branch} branch` : ', branch by branch'}.`,
      ...(books
        ? [`Call report_low_stock${branch ? ` with branch="${branch}"` : ''}: it compares each branch's own stock with the reorder level.`]
        : [
            'Use list_products with track_stock=true (all pages, per_page=100); low_stock=true compares only the total stock, so',
            `instead compare ${branch ? 'that branch' : 'each branch'}'s own on_hand with the reorder level. Leave out archived products.`,
          ]),
      'For each: name, sku, on hand at the branch, reorder level, and how far below it. Quantities exactly as given.',
    ].join('\n'),
});
