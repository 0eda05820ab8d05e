// `business: "all"`: the tool once per business on its own unit, a section each in its own currencies; nothing
// is added across businesses, and one that refused or is not up to date is named as such, never left out.
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { BusinessUnit } from './businesses.js';

type Status = 'answered' | 'not_up_to_date' | 'still_reading' | 'refused';

interface Section {
  business: string;
  status: Status;
  /** The business's own answer, as its tool gives it alone. */
  answer?: Record<string, unknown>;
  /** Why it did not answer, or why its figures are not up to date. */
  reason?: string;
}

const textOf = (result: CallToolResult): string =>
  result.content
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');

/** The first line after the business's name: what the service or the books said. */
const reasonOf = (text: string): string => text.replace(/^Business: [^\n]*\n/, '').split('\n')[0] ?? '';

function sectionOf(unit: BusinessUnit, result: CallToolResult): Section {
  const business = unit.name ?? 'the business';
  if (result.isError) return { business, status: 'refused', reason: reasonOf(textOf(result)) };
  const answer = (result.structuredContent ?? {}) as Record<string, unknown>;
  if (typeof answer.warning === 'string') return { business, status: 'not_up_to_date', answer, reason: answer.warning };
  // Product figures from only some invoices' lines: the mirror is still reading the rest.
  const lines = answer.lines as { with_lines?: number; invoices?: number } | undefined;
  if (lines && (lines.with_lines ?? 0) < (lines.invoices ?? 0))
    return { business, status: 'still_reading', answer, reason: `lines of ${lines.with_lines} of ${lines.invoices} invoices read so far` };
  return { business, status: 'answered', answer };
}

function summary(sections: Section[]): string {
  const answered = sections.filter((s) => s.status !== 'refused').length;
  const named = (status: Status, words: string) => {
    const these = sections.filter((s) => s.status === status).map((s) => s.business);
    return these.length > 0 ? `; ${words}: ${these.join(', ')}` : '';
  };
  const notWhole = `${named('not_up_to_date', 'not up to date')}${named('still_reading', 'still reading')}`;
  return (
    `${answered} of ${sections.length} businesses answered${named('refused', 'refused')}${notWhole}. ` +
    'Each business below has its own figures in its own currencies: nothing is added across businesses.'
  );
}

/** `answer` run for each unit at once (each on its own key and pace), as one result with a section per business. */
export async function across(
  toolName: string,
  units: readonly BusinessUnit[],
  answer: (unit: BusinessUnit) => Promise<CallToolResult>,
): Promise<CallToolResult> {
  const results = await Promise.all(units.map(answer));
  const sections = units.map((unit, i) => sectionOf(unit, results[i] as CallToolResult));
  const texts = results.map((result, i) => {
    const text = textOf(result);
    return result.isError ? `Business: ${sections[i]?.business}.\nRefused (${toolName}): ${reasonOf(text)}` : text;
  });
  const answered = sections.filter((s) => s.status !== 'refused').length;
  return {
    content: [{ type: 'text', text: [summary(sections), ...texts].join('\n\n') }],
    structuredContent: { businesses: sections, answered, asked: sections.length },
  };
}
