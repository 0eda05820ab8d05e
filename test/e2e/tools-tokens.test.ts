// What every conversation pays before its first word: the whole tools/list answer of the built server, as
// received, counted in o200k tokens. The count is printed so a change in it can be reported.
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { businessesFile } from './support/businesses-file.js';
import { connectClient } from './support/clients.js';
import { stdioHere } from './support/stdio-here.js';

const BUDGET = 4_200;
/** With several businesses every tool takes `business`: the list may grow to this, and no further. */
const SEVERAL_BUDGET = 4_400;

const business = (name: string, n: number) => ({
  name,
  base_url: 'https://invoicing.example.com',
  key_id: `svck_test_tokens${n}`,
  secret: `svc_test_tokens${n}`,
});

describe('the tools list', () => {
  it(`costs at most ${BUDGET} o200k tokens`, async () => {
    const mcp = await connectClient('v2', { linked: await stdioHere() });
    try {
      const { tools } = await mcp.client.listTools();
      const tokens = countTokens(JSON.stringify(tools));
      console.error(`tools/list: ${tools.length} tools, ${tokens} o200k tokens (budget ${BUDGET})`);
      expect(tools.length).toBeGreaterThan(0);
      expect(tokens).toBeLessThanOrEqual(BUDGET);
    } finally {
      await mcp.close();
    }
  });

  it(`costs at most ${SEVERAL_BUDGET} o200k tokens with three businesses, each tool taking \`business\``, async () => {
    const file = businessesFile([business('Harbourside', 1), business('Tui Dental', 2), business('Kauri Build', 3)]);
    const mcp = await connectClient('v2', { linked: await stdioHere(['--businesses', file]) });
    try {
      const { tools } = await mcp.client.listTools();
      const tokens = countTokens(JSON.stringify(tools));
      console.error(`tools/list with three businesses: ${tools.length} tools, ${tokens} o200k tokens (budget ${SEVERAL_BUDGET})`);
      for (const t of tools) expect(t.inputSchema.properties, t.name).toHaveProperty('business');
      expect(tokens).toBeLessThanOrEqual(SEVERAL_BUDGET);
    } finally {
      await mcp.close();
    }
  });
});
