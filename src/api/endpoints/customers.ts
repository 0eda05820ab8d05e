// Customers: read, and create (customers.write).
import type { RequestCore } from '../request.js';
import { CustomerSchema, type Customer, type CustomerCreate, type CustomerListQuery, type ResourceKind } from '../schemas.js';
import { createdDecoder, createRecord, readResource, type CreateOptions, type Created, type ReadResource } from './resource.js';

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
