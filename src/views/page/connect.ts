// Every view's start: connect to the host through the extension's App, follow the host's theme and styles,
// and draw each tool result the host sends (again when the theme changes, since charts take its colours).
// Until the result comes (a long answer can take minutes), the page says it is waiting; if the host cancels
// the call, it says so: a status either way, announced politely. Figures from only some invoices' lines (the
// mirror still reading the rest) are asked for again through the host, when it lets the page call the tool,
// and drawn anew each time, so the page shows the lines coming in until the figures are whole.
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

/** Lines of a product answer still being read: how many invoices wait, and about how long (s). */
function pendingOf(result: ToolResult): { seconds: number | null } | null {
  const data = result.structuredContent as
    | { lines?: { with_lines: number; invoices: number }; lines_pending?: { seconds: number | null } }
    | undefined;
  if (!data?.lines || data.lines.with_lines >= data.lines.invoices) return null;
  return data.lines_pending ?? { seconds: null };
}

/** How long the page waits before asking again: a quarter of the time the rest should take, from 5 s to a minute. */
export const askAgainMs = (seconds: number | null): number =>
  seconds === null ? 15_000 : Math.min(60_000, Math.max(5_000, Math.round((seconds * 1000) / 4)));

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

/** On a server of several businesses, whose books the result is from (register-tools.ts's BUSINESS_META_KEY). */
const businessOf = (result: ToolResult): string | null => {
  const name = result._meta?.['invoicing-mcp/business'];
  return typeof name === 'string' ? name : null;
};

export function startView(name: string, render: Render): void {
  const root = document.getElementById('view') as HTMLElement;
  const app = new App({ name, version: '0.1.0' });
  let last: ToolResult | null = null;
  let args: Record<string, unknown> = {};
  let undo: (() => void) | undefined;
  let again: ReturnType<typeof setTimeout> | undefined;
  /** Asks the tool again later, through the host, while the figures are partial and the host allows it. */
  const askAgainLater = (result: ToolResult): void => {
    clearTimeout(again);
    const pending = pendingOf(result);
    const name = app.getHostContext()?.toolInfo?.tool.name;
    if (!pending || !name || !app.getHostCapabilities()?.serverTools) return;
    const waitMs = askAgainMs(pending.seconds);
    root.append(
      el(
        'p',
        { role: 'status', class: 'again' },
        `This page asks again in ${Math.round(waitMs / 1000)} seconds and shows the figures as their lines come in.`,
      ),
    );
    again = setTimeout(() => {
      app.callServerTool({ name, arguments: args }).then(
        (newer) => {
          last = newer;
          draw();
        },
        // What is shown stays; the person can ask again.
        () => undefined,
      );
    }, waitMs);
  };
  const draw = () => {
    if (!last) return;
    undo?.();
    undo = undefined;
    root.replaceChildren();
    if (last.isError || !last.structuredContent)
      root.append(el('p', { role: 'alert' }, textOf(last) || 'The tool gave no result to show.'));
    else {
      undo = render(root, last, app, args);
      askAgainLater(last);
    }
    const business = businessOf(last);
    if (business) root.prepend(el('p', { class: 'business' }, `Business: ${business}`));
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
    clearTimeout(again);
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
