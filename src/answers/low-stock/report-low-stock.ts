// report_low_stock: what is at or below its reorder level at each branch, by that branch's own stock.
import * as z from 'zod/v4';
import { defineTool, READ_HINTS } from '../../../tools/define.js';
import { counted } from '../../core/counted.js';
import { RefusedQuestion } from '../../core/refused.js';
import { asOf, asOfFields, asOfLine, freshBooks, rows } from '../fresh.js';
import { answerLowStock, type LowStockAnswer } from './figures.js';

function lowStock(products: Parameters<typeof answerLowStock>[0], branch: string | undefined): LowStockAnswer {
  try {
    return answerLowStock(products, branch);
  } catch (err) {
    throw err instanceof RangeError ? new RefusedQuestion(err.message) : err;
  }
}

export const reportLowStock = defineTool({
  name: 'report_low_stock',
  title: 'Low stock per branch',
  description: "Active tracked products at or below their reorder level at a branch (the branch's own stock), with the shortfall.",
  toolset: 'products',
  scope: 'products.read',
  books: true,
  input: z.object({ branch: z.string().min(1).optional().describe('Branch name or id; default every branch') }),
  output: z.object({ ...asOf, branches: rows, items: rows }),
  annotations: READ_HINTS,
  view: 'report-chart',
  async handler(ctx, args) {
    const { read, freshness } = await freshBooks(ctx, ['products']);
    const answer = lowStock(await read.products(), args.branch);
    const out = [
      `Low stock${args.branch ? ` at ${answer.branches.map((b) => b.branch).join(', ')}` : ' per branch'}. ${asOfLine(freshness)}`,
    ];
    for (const b of answer.branches) {
      const items = answer.items.filter((i) => i.branch_id === b.branch_id);
      out.push(`${b.branch} (branch ${b.branch_id}): ${items.length === 0 ? 'nothing low' : counted(items.length, 'product')}`);
      for (const i of items) {
        out.push(
          `- #${i.product_id} ${i.name}${i.sku ? ` [${i.sku}]` : ''}: on hand ${i.on_hand}, reorder level ${i.reorder_level}, short by ${i.short_by}`,
        );
      }
    }
    return { structured: { ...asOfFields(freshness), ...answer }, text: out.join('\n') };
  },
});
