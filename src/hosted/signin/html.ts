// The sign-in page's HTML: served by us, self-contained (one stylesheet, inlined and allowed by its hash;
// no script, no third-party asset), every field labelled, errors announced (role="alert") and tied to
// their field, the first thing to do focused. Every value from elsewhere is escaped.
import { createHash } from 'node:crypto';

const STYLE = `
:root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.5; }
body { margin: 0; padding: 2rem 1rem; }
main { max-width: 32rem; margin: 0 auto; }
h1 { font-size: 1.5rem; margin: 0 0 1rem; }
h2 { font-size: 1.2rem; margin: 1.5rem 0 .5rem; }
.url { font-family: ui-monospace, monospace; overflow-wrap: anywhere; margin: .25rem 0; }
label { display: block; font-weight: 600; margin-top: 1rem; }
input[type=text], input[type=password] { box-sizing: border-box; width: 100%; padding: .5rem; font: inherit; border: 1px solid; border-radius: .25rem; }
.hint { margin: .25rem 0 0; font-size: .875rem; }
fieldset { margin: 1rem 0; border: 1px solid; border-radius: .25rem; }
fieldset label { display: inline; font-weight: normal; margin: 0 0 0 .25rem; }
.choice { margin: .5rem 0; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
dt { font-weight: 600; }
dd { margin: 0; }
.alert { border: 2px solid #b00020; border-radius: .25rem; padding: .5rem 1rem; margin: 1rem 0; }
.alert h2 { font-size: 1.1rem; margin: 0; }
.actions { display: flex; gap: 1rem; margin-top: 1.5rem; }
button { font: inherit; padding: .5rem 1.25rem; border-radius: .25rem; border: 1px solid; cursor: pointer; }
button.primary { background: #1a56db; color: #fff; border-color: #1a56db; }
:focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
`;

/** The hash the Content-Security-Policy allows the stylesheet by. */
export const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

export function pageHtml(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · invoicing-mcp</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

export interface Problem {
  heading: string;
  words: string;
}

export function alertHtml(problem: Problem | undefined): string {
  if (!problem) return '';
  return `<div class="alert" role="alert" id="problem"><h2>${escapeHtml(problem.heading)}</h2><p>${escapeHtml(problem.words)}</p></div>`;
}

/** Hidden fields every form carries: the anti-forgery token. */
export const csrfField = (csrf: string): string => `<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">`;
