// What the draft review shows a reviewer, beside the invoice itself: computed on the server, exact decimal
// strings, carried in the tool result's _meta (the text and structured content stay what they were).
export interface PriceChange {
  /** 1-based line number on the invoice. */
  line: number;
  product_id: number;
  product_name: string;
  unit_price: string;
  default_price: string;
}

export interface OverdueMoney {
  currency: string;
  count: number;
  balance: string;
}

export interface SimilarDraft {
  id: number;
  number: string;
  currency: string;
  total: string;
  created_at: string;
  same_total: boolean;
}

export interface DraftReview {
  /** The invoice's web address at the service: its portal page (see docs/views.md). */
  web_url: string;
  price_changes: PriceChange[];
  overdue: OverdueMoney[];
  similar_drafts: SimilarDraft[];
}
