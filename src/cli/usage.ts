// The words of `invoicing-mcp --help`: the commands, the server's flags, and the environment it reads.
import { SERVE_USAGE } from './serve-flags.js';

const COMMANDS = `usage: invoicing-mcp [flags]          serve MCP over stdio (what a desktop client starts)
       invoicing-mcp --http [flags]   serve MCP over Streamable HTTP at http://HOST:PORT/mcp
       invoicing-mcp --hosted [flags] serve many businesses over HTTP; people sign in with their key (OAuth)
       invoicing-mcp check            sign in and print mode, business, scopes, limits and usable tools
       invoicing-mcp sandbox ...      run the emulated Invoicing Service on its own (see sandbox --help)
       invoicing-mcp mirror status|forget [--mirror PATH|postgres://...]   what the local copy of the books holds; delete it
       invoicing-mcp vault reseal [--mirror postgres://...]   hosted: seal stored secrets again under the new vault key
       invoicing-mcp --version        print the version
       invoicing-mcp --help           print this help`;

const ENVIRONMENT = `The service (environment):
  SVC_BASE_URL        base URL of the Invoicing Service (https://...)
  SVC_KEY_ID          the API key's ID from the developer console (svck_live_... or svck_test_...)
  SVC_SECRET          the key's secret (svc_live_... or svc_test_...)
  SVC_WEBHOOK_SECRET  optional: the signing secret of the webhook endpoint (whsec_...)
  SVC_POLL_SECONDS    optional: seconds between polls for changes (default 60; 0 turns polling off)
With none of SVC_BASE_URL, SVC_KEY_ID and SVC_SECRET set, the server runs on its built-in sandbox in test
mode: sample books, nothing real is read or changed.
Hosted mode (--hosted) takes SVC_BASE_URL and, instead of a key, INVOICING_MCP_VAULT_KEY: 32 random bytes in
base64 (openssl rand -base64 32) that encrypt the businesses' stored keys. Several, comma-separated, are all
read; the first seals. To rotate: give every process "OLD,NEW", then "NEW,OLD", then run vault reseal.`;

export function helpText(version: string): string {
  return `invoicing-mcp ${version}: an MCP server for the books of one business on the Invoicing Service.

${COMMANDS}

Flags of the server:
${SERVE_USAGE.replace(/^usage: /, '       ')}

${ENVIRONMENT}`;
}
