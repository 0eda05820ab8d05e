// An answer across businesses says of each business whether it answered whole, is still reading lines, is
// not up to date or refused, and counts those that answered; each section is the business's own answer.
import type { CallToolResult } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { across } from '../../src/mcp/across-businesses.js';
import type { BusinessUnit } from '../../src/mcp/businesses.js';

const unit = (name: string): BusinessUnit => ({ name, context: {} as never, events: {} as never });
const answer = (text: string, structured: Record<string, unknown>): CallToolResult => ({
  content: [{ type: 'text', text }],
  structuredContent: structured,
});

describe('an answer across businesses', () => {
  it('names each business by how it answered and counts those that did', async () => {
    const results: Record<string, CallToolResult> = {
      Whole: answer('Business: Whole.\nNZD 10.00', { totals: [{ currency: 'NZD', total: '10.00' }] }),
      Reading: answer('Business: Reading.\nPARTIAL', { lines: { with_lines: 3, invoices: 9 } }),
      Stale: answer('Business: Stale.\nNZD 1.00', { warning: 'the service could not be reached' }),
      Refused: { content: [{ type: 'text', text: 'Business: Refused.\nThe key was revoked.\nMore.' }], isError: true },
    };
    const units = Object.keys(results).map(unit);
    const result = await across('report_sales', units, async (u) => results[u.name as string] as CallToolResult);
    const structured = result.structuredContent as {
      businesses: { business: string; status: string; reason?: string }[];
      answered: number;
      asked: number;
    };
    expect(structured.businesses.map((b) => [b.business, b.status])).toEqual([
      ['Whole', 'answered'],
      ['Reading', 'still_reading'],
      ['Stale', 'not_up_to_date'],
      ['Refused', 'refused'],
    ]);
    expect(structured.businesses[3]?.reason).toBe('The key was revoked.');
    expect([structured.answered, structured.asked]).toEqual([3, 4]);
    const text = (result.content[0] as { text: string }).text;
    expect(text.split('\n')[0]).toBe(
      '3 of 4 businesses answered; refused: Refused; not up to date: Stale; still reading: Reading. Each business below has its own figures in its own currencies: nothing is added across businesses.',
    );
    expect(text).toContain('Business: Refused.\nRefused (report_sales): The key was revoked.');
    expect(text).toContain('Business: Whole.\nNZD 10.00');
  });
});
