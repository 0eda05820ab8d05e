// Customers: read, and create (customers.write).
import type { RequestCore } from '../request.js';
import { type Customer, type CustomerCreate, type CustomerListQuery, CustomerSchema, type ResourceKind } from '../schemas.js';
import { type Created, type CreateOptions, createdDecoder, createRecord, type ReadResource, readResource } from './resource.js';

export interface CustomersApi extends ReadResource<Customer, Customer, CustomerListQuery> {
  create(input: CustomerCreate, options?: CreateOptions): Promise<Created<Customer>>;
}

export function customersApi(core: RequestCore, invalidate: (kind: ResourceKind, id?: number) => void): CustomersApi {
  const answer = createdDecoder(CustomerSchema);
  return {
    ...readResource<typeof CustomerSchema, typeof CustomerSchema, CustomerListQuery>(core, 'customers', CustomerSchema, CustomerSchema),
    create: (input, options) => createRecord<typeof CustomerSchema>(core, invalidate, 'customers', answer, input, options),
  };
}
