// What people in the business do, through the sandbox's admin interface (each emits its webhook), on
// records made for the test so that runs never share state: a draft invoice created and sent, paid in
// part and then in full; a quote accepted; a product's stock moved down across its reorder level.

import type { ApiClient } from '../../../src/api/index.js';
import { makeClient } from '../../support/client.js';
import { Exact } from '../../support/exact.js';
import { captureLogs } from '../../support/logs.js';
import { ALL_SCOPES, type TestSandbox } from '../../support/sandbox.js';

export interface BusinessOps {
  /** A new draft for customer 1 (one line of 100.00, tax as the business charges it). */
  draftInvoice(): Promise<{ id: number; total: string }>;
  sendInvoice(id: number): Promise<void>;
  /** Records a payment of `amount` against invoice `id`; returns the payment's id. */
  pay(id: number, amount: string): Promise<number>;
  /** An open quote (draft, sent or viewed) no earlier call returned. */
  openQuote(): Promise<number>;
  acceptQuote(id: number): Promise<void>;
  /** The id the next payment will get (ids ascend, one sequence for both of the sandbox's businesses). */
  nextPaymentId(): Promise<number>;
  /** A tracked product above its reorder level (restocked if need be), ready to cross. */
  productAboveReorder(): Promise<{ id: number; branchId: number; excess: string }>;
  /** Moves the product's stock down to exactly its reorder level. */
  dropToReorder(product: { id: number; branchId: number; excess: string }): Promise<void>;
}

async function lastPaymentId(api: ApiClient): Promise<number> {
  const first = await api.payments.list({ per_page: 1 }, { cache: 'skip' });
  const last = await api.payments.list({ per_page: 1, page: Math.max(1, first.meta?.total ?? 0) }, { cache: 'skip' });
  return last.data[0]?.id ?? 0;
}

export function businessOps(sb: TestSandbox, api: ApiClient): BusinessOps {
  const ok = async (method: string, path: string, body?: unknown): Promise<any> => {
    const reply = await sb.admin(method, path, body);
    if (reply.status >= 300) throw new Error(`admin ${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    return reply.body;
  };
  const handedOut = new Set<number>();
  return {
    async draftInvoice() {
      const created = await api.invoices.create({
        customer_id: 1,
        items: [{ description: 'Event test work', quantity: 1, unit_price: '100.00' }],
      } as never);
      return { id: created.data.id, total: created.data.total };
    },
    async sendInvoice(id) {
      await ok('POST', `/invoices/${id}/send`);
    },
    async pay(id, amount) {
      const body = await ok('POST', '/payments', {
        customer_id: 1,
        amount,
        method: 'bank_transfer',
        allocations: [{ invoice_id: id, amount }],
      });
      return body.data.id as number;
    },
    async openQuote() {
      for await (const quote of api.quotes.all({}, { cache: 'skip' })) {
        if (['draft', 'sent', 'viewed'].includes(quote.status) && !handedOut.has(quote.id)) {
          handedOut.add(quote.id);
          return quote.id;
        }
      }
      throw new Error('no open quote left in the live books');
    },
    async acceptQuote(id) {
      await ok('POST', `/quotes/${id}/accept`);
    },
    async nextPaymentId() {
      const otherBusiness = makeClient(sb, await sb.makeKey('live', ALL_SCOPES, 2), captureLogs('warn'));
      try {
        return Math.max(await lastPaymentId(api), await lastPaymentId(otherBusiness)) + 1;
      } finally {
        await otherBusiness.close();
      }
    },
    async productAboveReorder() {
      for await (const product of api.products.all({}, { cache: 'skip' })) {
        const stock = product.stock;
        const branch = stock?.branches[0];
        if (!product.track_stock || !stock || !branch) continue;
        const onHand = Exact.of(stock.on_hand);
        const target = Exact.of(stock.reorder_level).plus(5);
        if (onHand.lt(target)) {
          await ok('POST', '/stock-movements', {
            product_id: product.id,
            branch_id: branch.branch_id,
            quantity: target.minus(onHand).toFixed(),
          });
        }
        return { id: product.id, branchId: branch.branch_id, excess: Exact.max(onHand, target).minus(stock.reorder_level).toFixed() };
      }
      throw new Error('no tracked product in the live books');
    },
    async dropToReorder(product) {
      await ok('POST', '/stock-movements', {
        product_id: product.id,
        branch_id: product.branchId,
        quantity: Exact.of(product.excess).neg().toFixed(),
      });
    },
  };
}
