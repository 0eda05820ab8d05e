// The built pages of the views (dist/views/NAME.html, made by scripts/build-views.mjs). The same relative
// address holds from the sources (src/views/) and from the bundle (dist/bin/), both two folders below the root.
import { readFile } from 'node:fs/promises';
import type { ViewName } from './catalog.js';

export const VIEWS_DIR = new URL('../../dist/views/', import.meta.url);

/** The page of one view, read once and kept by the caller's reader. */
export function pageReader(): (name: ViewName) => Promise<string> {
  const pages = new Map<ViewName, Promise<string>>();
  return (name) => {
    let page = pages.get(name);
    if (!page) {
      page = readFile(new URL(`${name}.html`, VIEWS_DIR), 'utf8');
      // A failed read (not built yet) is tried again next time rather than kept.
      page.catch(() => pages.delete(name));
      pages.set(name, page);
    }
    return page;
  };
}
