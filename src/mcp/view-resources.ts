// The views as ui:// resources with the MCP Apps MIME type, so that a host that renders MCP Apps can show the
// view a tool names. Read in any request, a stateless one too: the page is a file, nothing of a session.
import { RESOURCE_MIME_TYPE, registerAppResource } from '@modelcontextprotocol/ext-apps/server';
import type { McpServer } from '@modelcontextprotocol/server';
import { VIEW_NAMES, VIEWS, type ViewName } from '../views/catalog.js';
import { pageReader } from '../views/pages.js';

/** The `named` views' resources (those a shown tool names: select-tools.ts `viewsOf`). */
export function viewResources(named: ReadonlySet<ViewName>): ((server: McpServer) => void)[] {
  const read = pageReader();
  return VIEW_NAMES.filter((name) => named.has(name)).map((name) => {
    const { uri, title, description } = VIEWS[name];
    // No network at all (empty CSP domains) and a border from the host around the page.
    const ui = { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true };
    return (server) =>
      void registerAppResource(server, name, uri, { title, description, _meta: { ui } }, async () => ({
        contents: [{ uri, mimeType: RESOURCE_MIME_TYPE, text: await read(name), _meta: { ui } }],
      }));
  });
}
