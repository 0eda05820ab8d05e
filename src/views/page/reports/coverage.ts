// What a report's figures leave out, said in words on the page: figures summed from the lines of only some
// invoices (the mirror is still reading the others) are announced before any figure, and groups past the
// limit are counted, so no one reads a part as the whole.
import { counted, nounFor } from '../../../core/counted.js';
import { el } from '../dom.js';

/** `lines` of a product answer: how many of the range's invoices had their lines summed. */
export interface LinesCoverage {
  with_lines: number;
  invoices: number;
}

/** `lines_pending`: the invoices whose lines the background reads first, and about how long that takes. */
export interface LinesPending {
  invoices: number;
  seconds: number | null;
}

export const isPartial = (lines: LinesCoverage | undefined): lines is LinesCoverage =>
  lines !== undefined && lines.with_lines < lines.invoices;

/** "about 45 seconds", "about 4 minutes". */
export const aboutTime = (seconds: number): string =>
  seconds < 120 ? `about ${counted(seconds, 'second')}` : `about ${counted(Math.ceil(seconds / 60), 'minute')}`;

/** What the figures cover, in the words of a caption: "partial: the lines of 6 of 232 invoices". */
export const partOf = (lines: LinesCoverage): string =>
  `partial: the lines of ${lines.with_lines} of ${counted(lines.invoices, 'invoice')}`;

/**
 * The notice above partial figures, announced as it appears (role alert: these figures mislead if read as
 * whole). `totalsWhole`: the totals per currency come from every invoice (not from the lines), so only the
 * groups are partial.
 */
export function partialNotice(lines: LinesCoverage, pending: LinesPending | undefined, totalsWhole: boolean): HTMLElement {
  const all = counted(lines.invoices, 'invoice');
  const what = totalsWhole ? 'sales by product' : 'every figure';
  const covered =
    lines.with_lines === 0
      ? `No ${totalsWhole ? what : 'figure'} can be shown yet: the lines of the ${all} in this range are not in the books mirror yet.`
      : `${totalsWhole ? 'The bars and the table by product sum' : 'Every figure below sums'} the lines of only ` +
        `${lines.with_lines} of the ${all} in this range: the lines of the other ${lines.invoices - lines.with_lines} ` +
        'are not in the books mirror yet.';
  const when = !pending
    ? 'The missing lines are read in the background. Ask again later for whole figures.'
    : `The missing lines are being read now; ${
        pending.seconds === null ? 'how long that takes is not known yet' : `the figures will be whole in ${aboutTime(pending.seconds)}`
      }. Ask again then for whole figures.`;
  return el(
    'div',
    { class: 'notice', role: 'alert' },
    el('h2', {}, `Partial figures: ${what} from ${lines.with_lines} of ${all}`),
    el('p', {}, covered + (totalsWhole ? ` The totals per currency cover all ${all}.` : '')),
    el('p', {}, when),
  );
}

/** Groups a report left out past its limit: how many, and that the totals still count them. */
export function leftOutNote(shown: number, leftOut: number, groupBy: string, limit: unknown, period: boolean): HTMLElement | null {
  if (leftOut <= 0) return null;
  const which = typeof limit !== 'number' ? '' : period ? ` (the first ${limit})` : ` (the top ${limit} per currency)`;
  return el(
    'p',
    { class: 'note', role: 'note' },
    `Only ${shown} of ${counted(shown + leftOut, groupBy)} are shown below${which}; ` +
      `the other ${leftOut} ${nounFor(leftOut, 'is', 'are')} left out of the bars and tables, and counted in the totals per currency above.`,
  );
}
