// What people in the business do, through the sandbox's admin interface (each emits its webhook), on
// records made for the test so that runs never share state: a draft invoice created and sent, paid in
// part and then in full; a quote accepted; a product's stock moved down across its reorder level.
// Each acts on the books of one business: the tests pick the small second one (a few dozen invoices)
// unless they need the main one, so that a server's first sync of them costs little.

import type { ApiClient } from '../../../src/api/index.js';
import type { SandboxOptions } from '../../../src/sandbox/index.js';
import { makeClient } from '../../support/client.js';
import { Exact } from '../../support/exact.js';
import { captureLogs } from '../../support/logs.js';
import { ALL_SCOPES, type KeyPair, startTestSandbox, type TestSandbox } from '../../support/sandbox.js';

/** The sandbox's two businesses: the main one (~470 invoices) and the small second one (~30). */
export type BusinessId = 1 | 2;

export interface BusinessOps {
  /** A live key of the business, for a server that watches these books. */
  readonly key: KeyPair;
  /** A new draft for the business's first active customer (one line of 100.00, tax as the business charges it). */
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
  close(): Promise<void>;
}

async function lastPaymentId(api: ApiClient): Promise<number> {
  const first = await api.payments.list({ per_page: 1 }, { cache: 'skip' });
  const last = await api.payments.list({ per_page: 1, page: Math.max(1, first.meta?.total ?? 0) }, { cache: 'skip' });
  return last.data[0]?.id ?? 0;
}

/** The operations on the live books of business `businessId`, through a key of its own (see `key`). */
export async function businessOps(sb: TestSandbox, businessId: BusinessId): Promise<BusinessOps> {
  const logs = captureLogs('warn');
  const key = businessId === 1 ? sb.keys.live : await sb.makeKey('live', ALL_SCOPES, businessId);
  const api = makeClient(sb, key, logs);
  // Payment ids run on across both businesses: the next one is one past the last of either.
  const other = makeClient(sb, businessId === 1 ? await sb.makeKey('live', ALL_SCOPES, 2) : sb.keys.live, logs);
  const ok = async (method: string, path: string, body?: unknown): Promise<any> => {
    const reply = await sb.admin(method, `${path}?business_id=${businessId}`, body);
    if (reply.status >= 300) throw new Error(`admin ${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    return reply.body;
  };
  let customerId: number | undefined;
  const customer = async (): Promise<number> => {
    customerId ??= (await api.customers.list({ status: 'active', per_page: 1 }, { cache: 'skip' })).data[0]?.id;
    if (customerId === undefined) throw new Error(`no active customer in business ${businessId}`);
    return customerId;
  };
  const handedOut = new Set<number>();
  const productsHandedOut = new Set<number>();
  return {
    key,
    async draftInvoice() {
      const created = await api.invoices.create({
        customer_id: await customer(),
        items: [{ description: 'Event test work', quantity: 1, unit_price: '100.00' }],
      } as never);
      return { id: created.data.id, total: created.data.total };
    },
    async sendInvoice(id) {
      await ok('POST', `/invoices/${id}/send`);
    },
    async pay(id, amount) {
      const body = await ok('POST', '/payments', {
        customer_id: await customer(),
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
      throw new Error(`no open quote left in the live books of business ${businessId}`);
    },
    async acceptQuote(id) {
      await ok('POST', `/quotes/${id}/accept`);
    },
    async nextPaymentId() {
      return Math.max(await lastPaymentId(api), await lastPaymentId(other)) + 1;
    },
    async productAboveReorder() {
      // One not handed out before, and above its level already where one is: a product restocked and dropped
      // again between two of a mirror's polls is low before and after, and its drop is no news to polling.
      const tracked = [];
      for await (const product of api.products.all({}, { cache: 'skip' })) {
        const branch = product.stock?.branches[0];
        if (product.track_stock && product.stock && branch && !productsHandedOut.has(product.id)) tracked.push({ product, branch });
      }
      const above = ({ product }: (typeof tracked)[number]): boolean =>
        !Exact.of(product.stock!.on_hand).lt(Exact.of(product.stock!.reorder_level).plus(5));
      const chosen = tracked.find(above) ?? tracked[0];
      if (!chosen) throw new Error(`no tracked product left in the live books of business ${businessId}`);
      const { product, branch } = chosen;
      productsHandedOut.add(product.id);
      const stock = product.stock!;
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
    },
    async dropToReorder(product) {
      await ok('POST', '/stock-movements', {
        product_id: product.id,
        branch_id: product.branchId,
        quantity: Exact.of(product.excess).neg().toFixed(),
      });
    },
    async close() {
      await api.close();
      await other.close();
    },
  };
}

/** A sandbox of a test's own, and the operations on its small second business. */
export interface OwnBooks {
  sb: TestSandbox;
  ops: BusinessOps;
  close(): Promise<void>;
}

/** Books no other test touches: tests on books of their own run side by side. */
export async function ownBooks(options: SandboxOptions): Promise<OwnBooks> {
  const sb = await startTestSandbox(options);
  const ops = await businessOps(sb, 2);
  return {
    sb,
    ops,
    close: async () => {
      await ops.close();
      await sb.close();
    },
  };
}
