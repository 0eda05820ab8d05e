// The views a tool can name: each one self-contained ui:// page (script, styles and chart library inlined
// at build time by scripts/build-views.mjs into dist/views/NAME.html), and the key under which a tool
// result carries what only a view reads (never the model: it is in the result's _meta).
export const VIEWS = {
  'draft-review': {
    uri: 'ui://invoicing/draft',
    title: 'Draft review',
    description: 'An invoice as the customer will see it, with what a reviewer should check before sending a draft',
  },
  'report-chart': {
    uri: 'ui://invoicing/charts',
    title: 'Report charts',
    description: 'What is owed by age, sales and money received over time or by group, and low stock per branch, as charts',
  },
} as const;

export type ViewName = keyof typeof VIEWS;

export const VIEW_NAMES = Object.keys(VIEWS) as ViewName[];

/** Where a tool result carries the draft review's checks, in its _meta. */
export const REVIEW_META_KEY = 'io.github.invoicing-mcp/review';
