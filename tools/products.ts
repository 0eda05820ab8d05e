// Products and services: list and get, with stock per branch.

import * as z from 'zod/v4';
import { type Product, type ProductDetail, ProductDetailSchema, ProductSchema } from '../src/api/schemas.js';
import { defineTool, READ_HINTS } from './define.js';
import { shortQuantity } from './format.js';
import { getHandler, listHandler } from './handlers.js';
import { filterText, pageMeta, paging, recordId } from './params.js';

type ProductLike = Partial<Product> & { id: number };

const productLine = (p: ProductLike): string => {
  const stock = p.stock
    ? `, stock ${shortQuantity(p.stock.on_hand)} (reorder at ${shortQuantity(p.stock.reorder_level)})${p.stock.low ? ' LOW' : ''}: ` +
      p.stock.branches.map((b) => `${b.branch} ${shortQuantity(b.on_hand)}`).join(', ')
    : '';
  return (
    `#${p.id} ${p.name ?? ''}${p.sku ? ` [${p.sku}]` : ''} ${p.type ?? ''} price ${p.default_price ?? '?'}` +
    `${p.is_active === false ? ', archived' : ''}${stock}`
  );
};

export const listProducts = defineTool({
  name: 'list_products',
  title: 'List products',
  description: 'Products and services with price and stock per branch. low_stock: at or below reorder level.',
  toolset: 'products',
  scope: 'products.read',
  input: z.object({
    ...paging,
    active: z.boolean().optional().describe('false: archived'),
    barcode: filterText(),
    sku: filterText(),
    track_stock: z.boolean().optional(),
    low_stock: z.boolean().optional(),
  }),
  output: z.object({ data: z.array(ProductSchema), meta: pageMeta }),
  annotations: READ_HINTS,
  handler: listHandler<Product>('products', productLine),
});

export const getProduct = defineTool({
  name: 'get_product',
  title: 'Get a product',
  description: 'One product or service with stock per branch.',
  toolset: 'products',
  scope: 'products.read',
  input: z.object({ id: recordId('list_products') }),
  output: ProductDetailSchema,
  annotations: READ_HINTS,
  handler: getHandler<ProductDetail>('products', productLine),
});
