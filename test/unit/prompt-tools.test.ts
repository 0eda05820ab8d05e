// Each prompt names the tools it works through (it is offered only while they are shown: src/mcp/select-tools.ts),
// so a name that is no tool's would hide the prompt for ever.
import { describe, expect, it } from 'vitest';
import { PROMPTS } from '../../prompts/index.js';
import { TOOLS } from '../../src/mcp/registry.js';
import { reachedBy } from '../../src/mcp/select-tools.js';

describe('the tools a prompt works through', () => {
  it('are tools of the registry, and every prompt is offered when every tool is shown', () => {
    const names = new Set(TOOLS.map((t) => t.name));
    for (const prompt of PROMPTS) {
      expect(prompt.tools.length, prompt.name).toBeGreaterThan(0);
      for (const tool of prompt.tools) expect(names.has(tool), `${prompt.name}: ${tool}`).toBe(true);
    }
    expect(reachedBy(PROMPTS, TOOLS).map((p) => p.name)).toEqual(PROMPTS.map((p) => p.name));
  });

  it('are named in the text the prompt gives the model, with the books mirror or without it', () => {
    for (const prompt of PROMPTS) {
      const texts = [true, false].map((books) => prompt.text({ customer: 'Acme', work: 'two hours' } as never, books));
      for (const tool of prompt.tools)
        expect(
          texts.some((t) => t.includes(tool)),
          `${prompt.name}: ${tool}`,
        ).toBe(true);
    }
  });
});
