// The registry of prompts.
import type { PromptDefinition } from './define.js';
import { draftInvoicePrompt } from './draft-invoice.js';
import { lowStockPrompt } from './low-stock.js';
import { reviewOverduePrompt } from './review-overdue.js';
import { summariseCustomerPrompt } from './summarise-customer.js';

export const PROMPTS: readonly PromptDefinition[] = [
  draftInvoicePrompt,
  reviewOverduePrompt,
  summariseCustomerPrompt,
  lowStockPrompt,
] as unknown as readonly PromptDefinition[];

export type { PromptDefinition } from './define.js';
