// Invoices: list items without lines, single invoices with lines, and draft creation (invoices.write).
import type { RequestCore } from '../request.js';
import {
  type Invoice,
  type InvoiceCreate,
  type InvoiceListQuery,
  InvoiceSchema,
  type InvoiceSummary,
  InvoiceSummarySchema,
  type ResourceKind,
} from '../schemas.js';
import { type Created, type CreateOptions, createdDecoder, createRecord, type ReadResource, readResource } from './resource.js';

export interface InvoicesApi extends ReadResource<InvoiceSummary, Invoice, InvoiceListQuery> {
  /** Creates a draft; a person in the business reviews and sends it. */
  create(input: InvoiceCreate, options?: CreateOptions): Promise<Created<Invoice>>;
}

export function invoicesApi(core: RequestCore, invalidate: (kind: ResourceKind, id?: number) => void): InvoicesApi {
  const answer = createdDecoder(InvoiceSchema);
  return {
    ...readResource<typeof InvoiceSummarySchema, typeof InvoiceSchema, InvoiceListQuery>(
      core,
      'invoices',
      InvoiceSummarySchema,
      InvoiceSchema,
    ),
    create: (input, options) => createRecord<typeof InvoiceSchema>(core, invalidate, 'invoices', answer, input, options),
  };
}
