// The draft review: an invoice as the customer will see it (customer, dates, every line, tax and totals),
// what a reviewer should check, and a link that opens the invoice at the service. It never writes: the
// link goes through the host, which shows it to the person.
import type { App } from '@modelcontextprotocol/ext-apps';
import type { Invoice } from '../../api/schemas.js';
import { counted } from '../../core/counted.js';
import { REVIEW_META_KEY } from '../catalog.js';
import type { DraftReview } from '../review.js';
import { startView, type ToolResult } from './connect.js';
import { el, section, table } from './dom.js';
import { shortQuantity, withCurrency } from './figures.js';

function checks(review: DraftReview, invoice: Invoice): HTMLElement {
  const notes: string[] = [
    ...review.price_changes.map(
      (p) => `Line ${p.line}, ${p.product_name}: unit price ${p.unit_price}, the product's default is ${p.default_price}.`,
    ),
    ...review.overdue.map(
      (o) => `${invoice.customer.name} already has ${withCurrency(o.currency, o.balance)} overdue on ${counted(o.count, 'invoice')}.`,
    ),
    ...review.similar_drafts.map(
      (d) =>
        `Draft ${d.number} for the same customer was made within a day (${d.created_at}), total ${withCurrency(d.currency, d.total)}` +
        `${d.same_total ? ': the same total' : ''}.`,
    ),
  ];
  const body = notes.length === 0 ? el('p', {}, 'Nothing to flag.') : el('ul', { class: 'checks' }, ...notes.map((n) => el('li', {}, n)));
  return section('What to check before sending', body);
}

function lines(invoice: Invoice): HTMLTableElement {
  const rows = invoice.items.map((l) => [l.description, shortQuantity(l.quantity), l.unit_price, l.tax_amount, l.line_total]);
  const t = table(`Lines (${invoice.currency})`, ['Description', 'Quantity', 'Unit price', 'Tax', 'Line total'], rows, (i) => i > 0);
  const total = (label: string, amount: string, strong = false) =>
    el('tr', strong ? { class: 'total' } : {}, el('th', { scope: 'row', colspan: '4' }, label), el('td', { class: 'num' }, amount));
  t.append(
    el(
      'tfoot',
      {},
      total('Subtotal', invoice.subtotal),
      total('Tax', invoice.tax_total),
      total(`Total ${invoice.currency}`, invoice.total, true),
      invoice.balance === invoice.total ? null : total('Balance', invoice.balance),
    ),
  );
  return t;
}

function openLink(app: App, url: string): HTMLElement {
  const link = el('a', { href: url, class: 'button', target: '_blank', rel: 'noopener' }, 'Open the invoice at the service');
  link.addEventListener('click', (event) => {
    // The page sits in the host's sandbox: the host opens the address, after the person agrees.
    event.preventDefault();
    void app.openLink({ url });
  });
  return link;
}

function render(root: HTMLElement, result: ToolResult, app: App): undefined {
  const invoice = result.structuredContent as unknown as Invoice;
  const review = result._meta?.[REVIEW_META_KEY] as DraftReview | undefined;
  const draft = invoice.status === 'draft';
  root.append(
    el(
      'header',
      {},
      el('h1', {}, `${draft ? 'Draft invoice' : 'Invoice'} ${invoice.number}`, ' ', el('span', { class: 'badge' }, invoice.status)),
      el(
        'dl',
        { class: 'facts' },
        el('dt', {}, 'Customer'),
        el('dd', {}, `${invoice.customer.name} (customer ${invoice.customer.id})`),
        el('dt', {}, 'Issued'),
        el('dd', {}, invoice.issue_date),
        el('dt', {}, 'Due'),
        el('dd', {}, invoice.due_date),
      ),
    ),
    review ? checks(review, invoice) : null,
    lines(invoice),
    el(
      'footer',
      {},
      openLink(app, review?.web_url ?? invoice.portal_url),
      draft ? el('p', { class: 'quiet' }, 'This view sends nothing: a person in the business reviews the draft and sends it.') : null,
    ),
  );
  return undefined;
}

startView('invoicing-mcp draft review', render);
