// Builds the page from text nodes only: data from the books is never read as HTML.
type Child = Node | string | null | undefined | false;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  for (const child of children) if (child) node.append(child);
  return node;
}

/** A table of text: a header row, then one row per entry, the first cell of each row its header. */
export function table(caption: string, head: string[], rows: string[][], numeric: (column: number) => boolean): HTMLTableElement {
  const th = (text: string, i: number) => el('th', { scope: 'col', ...(numeric(i) ? { class: 'num' } : {}) }, text);
  const row = (cells: string[]) =>
    el(
      'tr',
      {},
      ...cells.map((text, i) => (i === 0 ? el('th', { scope: 'row' }, text) : el('td', numeric(i) ? { class: 'num' } : {}, text))),
    );
  return el('table', {}, el('caption', {}, caption), el('thead', {}, el('tr', {}, ...head.map(th))), el('tbody', {}, ...rows.map(row)));
}

export const section = (title: string, ...children: Child[]): HTMLElement => el('section', {}, el('h2', {}, title), ...children);
