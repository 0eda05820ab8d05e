// What report_owed reads of the books, as one state of them: the store's sums of what is receivable (per
// currency and due date, the top customers, the oldest invoices) where they answer the question, else the
// receivable invoices as rows, summed here exactly: the store's sums have no filter by minimum balance or
// currency (balances are compared exactly here).

import type { MirrorReader } from '../../store/types.js';
import { addDays } from '../dates.js';
import { answerOwed, answerOwedFromSums, type OwedAnswer, type OwedQuestion } from './figures.js';

export function readOwed(
  snapshot: <T>(work: (read: MirrorReader) => Promise<T>) => Promise<T>,
  q: OwedQuestion & { currency?: string | undefined },
): Promise<OwedAnswer> {
  const dueBefore = q.overDays === undefined ? undefined : addDays(q.today, -q.overDays);
  return snapshot(async (read) => {
    const sums =
      q.minBalance === undefined && q.currency === undefined
        ? await read.owing({ customerId: q.customerId, dueBefore, top: q.top, limit: q.invoiceLimit, offset: q.offset })
        : null;
    if (sums) return answerOwedFromSums(sums, q);
    const invoices = await read.invoices({
      receivable: true,
      ...(q.customerId ? { customerId: q.customerId } : {}),
      ...(q.currency ? { currency: q.currency } : {}),
    });
    return answerOwed(invoices, q);
  });
}
