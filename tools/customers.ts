// Customers: list, get, create.
import * as z from 'zod/v4';
import { type Customer, CustomerSchema } from '../src/api/schemas.js';
import { CREATE_HINTS, defineTool, READ_HINTS } from './define.js';
import { fields, NOT_SAVED, replayNote } from './format.js';
import { listHandler } from './handlers.js';
import { filterText, idempotencyKey, pageMeta, paging, recordId } from './params.js';

const customerLine = (c: Customer): string =>
  `#${c.id} ${c.code} ${c.name} (${c.status})${c.email ? ` ${c.email}` : ''}${c.phone ? ` ${c.phone}` : ''}`;

export const listCustomers = defineTool({
  name: 'list_customers',
  title: 'List customers',
  description: 'Customers, oldest first, by status or part of the name.',
  toolset: 'customers',
  scope: 'customers.read',
  input: z.object({
    ...paging,
    status: z.enum(['active', 'archived']).optional(),
    search: filterText().describe('Part of the name'),
  }),
  output: z.object({ data: z.array(CustomerSchema), meta: pageMeta }),
  annotations: READ_HINTS,
  handler: listHandler<Customer>('customers', customerLine),
});

export const getCustomer = defineTool({
  name: 'get_customer',
  title: 'Get a customer',
  description: 'One customer with contact details and address.',
  toolset: 'customers',
  scope: 'customers.read',
  input: z.object({ id: recordId('list_customers') }),
  output: CustomerSchema,
  annotations: READ_HINTS,
  async handler({ api }, { id }) {
    const c = await api.customers.get(id);
    const address = c.address
      ? Object.values(c.address)
          .filter((v) => typeof v === 'string' && v !== '')
          .join(', ')
      : '';
    const text = [
      customerLine(c),
      fields([
        ['tax number', c.tax_number],
        ['address', address],
      ]),
    ]
      .filter(Boolean)
      .join('\n');
    return { structured: c, text };
  },
});

const optionalText = (max: number) => z.string().max(max).optional();

export const createCustomer = defineTool({
  name: 'create_customer',
  title: 'Create a customer',
  description: 'Adds a customer (the service assigns the code). Search list_customers first to avoid duplicates.',
  toolset: 'customers',
  scope: 'customers.write',
  input: z.object({
    name: z.string().min(1).max(255),
    email: z.email().optional(),
    phone: optionalText(50).describe('With country code'),
    tax_number: optionalText(50),
    address: z
      .object({
        line1: optionalText(255),
        line2: optionalText(255),
        city: optionalText(255),
        region: optionalText(255),
        postal_code: optionalText(255),
      })
      .optional(),
    notes: optionalText(2000),
    idempotency_key: idempotencyKey,
  }),
  output: CustomerSchema,
  annotations: CREATE_HINTS,
  write: {
    async summarize(_ctx, args) {
      return `Create customer "${args.name}"${args.email ? ` <${args.email}>` : ''}${args.phone ? `, ${args.phone}` : ''}?`;
    },
  },
  async handler({ api }, { idempotency_key, ...input }) {
    const created = await api.customers.create(input, { idempotencyKey: idempotency_key });
    const c = created.data;
    const again = replayNote(created);
    const customer = `${c.code} ${c.name}, id ${c.id}.${again ? ` ${again}` : ''}`;
    const text =
      api.mode === 'test' ? `${NOT_SAVED} The customer as the service would make it: ${customer}` : `Created customer ${customer} Saved.`;
    return { structured: c, text };
  },
});
