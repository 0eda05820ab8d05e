// The read-only resources: quotes, payments, products. The single-product answer's shape is "not shown"
// in the spec, so it is read leniently: only `id` is required.
import type { RequestCore } from '../request.js';
import {
  type Payment,
  type PaymentListQuery,
  PaymentSchema,
  type Product,
  type ProductDetail,
  ProductDetailSchema,
  type ProductListQuery,
  ProductSchema,
  type Quote,
  type QuoteListQuery,
  QuoteSchema,
} from '../schemas.js';
import { type ReadResource, readResource } from './resource.js';

export { type ProductDetail, ProductDetailSchema };

export type QuotesApi = ReadResource<Quote, Quote, QuoteListQuery>;
export type PaymentsApi = ReadResource<Payment, Payment, PaymentListQuery>;
export type ProductsApi = ReadResource<Product, ProductDetail, ProductListQuery>;

export const quotesApi = (core: RequestCore): QuotesApi =>
  readResource<typeof QuoteSchema, typeof QuoteSchema, QuoteListQuery>(core, 'quotes', QuoteSchema, QuoteSchema);

export const paymentsApi = (core: RequestCore): PaymentsApi =>
  readResource<typeof PaymentSchema, typeof PaymentSchema, PaymentListQuery>(core, 'payments', PaymentSchema, PaymentSchema);

export const productsApi = (core: RequestCore): ProductsApi =>
  readResource<typeof ProductSchema, typeof ProductDetailSchema, ProductListQuery>(core, 'products', ProductSchema, ProductDetailSchema);
