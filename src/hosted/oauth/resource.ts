// The one protected resource: the canonical URL of /mcp (--public-url), and the scopes a grant can hold.
// Resource indicators are compared in canonical form: scheme and host lower case, no fragment, no trailing
// slash (RFC 8707 and the MCP authorization spec).

export const SCOPE_READ = 'books.read';
export const SCOPE_WRITE = 'books.write';
export const RESOURCE_SCOPES = [SCOPE_READ, SCOPE_WRITE] as const;

export function canonicalResource(url: string | URL): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  parsed.hash = '';
  // The URL parser lower-cases scheme and host, and writes an empty path as '/'.
  return parsed.href.endsWith('/') ? parsed.href.slice(0, -1) : parsed.href;
}
