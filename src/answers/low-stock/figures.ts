// Low stock per branch: active tracked products whose stock at a branch (that branch's own on hand, not the
// total) is at or below the product's reorder level, with how far below it they are.
import { Decimal } from '../../core/decimal.js';
import type { ProductRow } from '../../store/types.js';

export interface LowStockItem {
  product_id: number;
  name: string;
  sku: string | null;
  branch_id: number;
  branch: string;
  on_hand: string;
  reorder_level: string;
  /** reorder_level - on_hand: what brings the branch back to its reorder level. */
  short_by: string;
}

export interface LowStockAnswer {
  branches: { branch_id: number; branch: string }[];
  items: LowStockItem[];
}

/** `branch`: a branch id or name (any case); omitted, every branch. Throws when no branch matches. */
export function answerLowStock(products: readonly ProductRow[], branch?: string | number): LowStockAnswer {
  const known = new Map<number, string>();
  for (const p of products) for (const b of p.stock?.branches ?? []) known.set(b.branch_id, b.branch);
  const wanted = [...known].filter(
    ([id, name]) => branch === undefined || String(id) === String(branch) || name.toLowerCase() === String(branch).trim().toLowerCase(),
  );
  if (wanted.length === 0) {
    throw new RangeError(`no branch "${branch}": the branches are ${[...known].map(([id, name]) => `${name} (${id})`).join(', ')}`);
  }
  const ids = new Set(wanted.map(([id]) => id));
  const items: LowStockItem[] = [];
  for (const p of products) {
    if (!p.is_active || !p.track_stock || !p.stock) continue;
    const reorderLevel = Decimal.parse(p.stock.reorder_level);
    for (const b of p.stock.branches) {
      if (!ids.has(b.branch_id)) continue;
      const onHand = Decimal.parse(b.on_hand);
      if (onHand.gt(reorderLevel)) continue;
      items.push({
        product_id: p.id,
        name: p.name,
        sku: p.sku,
        branch_id: b.branch_id,
        branch: b.branch,
        on_hand: onHand.toShortString(),
        reorder_level: reorderLevel.toShortString(),
        short_by: reorderLevel.minus(onHand).toShortString(),
      });
    }
  }
  items.sort((a, b) => a.branch_id - b.branch_id || a.product_id - b.product_id);
  return { branches: wanted.map(([branch_id, name]) => ({ branch_id, branch: name })).sort((a, b) => a.branch_id - b.branch_id), items };
}
