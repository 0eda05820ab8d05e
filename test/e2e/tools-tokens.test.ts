// What every conversation pays before its first word: the whole tools/list answer of the built server, as
// received, counted in o200k tokens. The count is printed so a change in it can be reported.
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { connectClient } from './support/clients.js';
import { stdioHere } from './support/stdio-here.js';

const BUDGET = 4_200;

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
});
