// Every view's start: connect to the host through the extension's App, follow the host's theme and styles,
// and draw each tool result the host sends (again when the theme changes, since charts take its colours).
// Until the result comes (a long answer can take minutes), the page says it is waiting; if the host cancels
// the call, it says so: a status either way, announced politely.
import {
  App,
  applyDocumentTheme,
  applyHostFonts,
  applyHostStyleVariables,
  type McpUiHostContext,
  type McpUiToolResultNotification,
} from '@modelcontextprotocol/ext-apps';
import { el } from './dom.js';

export type ToolResult = McpUiToolResultNotification['params'];

/** Draws one result (and the arguments it was called with) into root; may return what undoes it (charts to destroy). */
export type Render = (root: HTMLElement, result: ToolResult, app: App, args: Record<string, unknown>) => (() => void) | undefined;

function followHost(context: McpUiHostContext | undefined): void {
  if (context?.theme) applyDocumentTheme(context.theme);
  if (context?.styles?.variables) applyHostStyleVariables(context.styles.variables);
  if (context?.styles?.css?.fonts) applyHostFonts(context.styles.css.fonts);
}

const textOf = (result: ToolResult): string =>
  result.content
    .flatMap((c) => (c.type === 'text' ? [c.text] : []))
    .join('\n')
    .trim();

export function startView(name: string, render: Render): void {
  const root = document.getElementById('view') as HTMLElement;
  const app = new App({ name, version: '0.1.0' });
  let last: ToolResult | null = null;
  let args: Record<string, unknown> = {};
  let undo: (() => void) | undefined;
  const draw = () => {
    if (!last) return;
    undo?.();
    undo = undefined;
    root.replaceChildren();
    if (last.isError || !last.structuredContent)
      root.append(el('p', { role: 'alert' }, textOf(last) || 'The tool gave no result to show.'));
    else undo = render(root, last, app, args);
    mark('ready');
  };
  const mark = (state: string) => {
    root.dataset.state = state;
    root.dataset.theme = document.documentElement.dataset.theme ?? 'light';
  };
  const say = (state: string, words: string) => {
    undo?.();
    undo = undefined;
    root.replaceChildren(el('p', { role: 'status' }, words));
    mark(state);
  };
  app.ontoolinput = (input) => {
    args = input.arguments ?? {};
    if (!last) say('waiting', 'Waiting for the answer: it appears here when the tool is done.');
  };
  app.ontoolcancelled = ({ reason }) => {
    last = null;
    say('cancelled', `The call was cancelled${reason ? ` (${reason})` : ''}: there is no answer to show.`);
  };
  app.ontoolresult = (result) => {
    last = result;
    draw();
  };
  app.onhostcontextchanged = () => {
    followHost(app.getHostContext());
    if (last) draw();
    else if (root.dataset.state) mark(root.dataset.state);
  };
  app.connect().then(
    () => followHost(app.getHostContext()),
    (err: unknown) => root.replaceChildren(el('p', { role: 'alert' }, `Could not reach the host: ${String(err)}`)),
  );
}
