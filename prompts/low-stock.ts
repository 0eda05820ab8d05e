import * as z from 'zod/v4';
import { definePrompt } from './define.js';

export const lowStockPrompt = definePrompt({
  name: 'report_low_stock',
  title: 'Report low stock',
  description: 'Tracked products at or below their reorder level, by branch.',
  args: () => z.object({ branch: z.string().optional().describe('Only this branch, by name') }),
  text: ({ branch }) =>
    [
      `Report the products that are low on stock${branch ? ` in the ${branch} branch` : ''}.`,
      'Use list_products with low_stock=true (all pages, per_page=100). For each: name, sku, on hand per branch,',
      'reorder level, and how far below it the product is. Leave out archived products unless they still hold',
      'stock. Quantities exactly as given.',
    ].join('\n'),
});
