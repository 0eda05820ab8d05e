// Looking for a hosted deployment's secrets where none may be: in every response a test's clients received
// (recorded by the fetch they were given), in the servers' logs, and in every table of the database (the
// vault's rows are sealed, so a secret found there is one in the clear). The secrets are the literal ones the
// sandbox handed out (key secrets, webhook signing secrets), the vault key, and the service's session tokens,
// which the sandbox keeps only by hash: any run of characters shaped like a token's body is hashed and looked up.
import { createHash } from 'node:crypto';
import pg from 'pg';
import { CREDENTIAL_SHAPES, findLeaks } from '../../support/logs.js';
import type { TestSandbox } from '../../support/sandbox.js';

/** The body of a session token (`svcat_` and 40 letters or digits), standing alone or after its prefix. */
const TOKEN_BODY = /(?<![A-Za-z0-9])[A-Za-z0-9]{40}(?![A-Za-z0-9])/g;

const tokenHash = (body: string): string => createHash('sha256').update(`svcat_${body}`).digest('base64');

export interface DeploymentSecrets {
  literals: string[];
  /** Hashes of the service's session tokens. */
  sessions: ReadonlySet<string>;
}

/** Everything the sandbox issued so far, and the deployment's vault key. */
export async function deploymentSecrets(sb: TestSandbox, vaultKey: string): Promise<DeploymentSecrets> {
  return { literals: [...sb.secrets, vaultKey], sessions: new Set(await sb.sessionTokenHashes()) };
}

/** Session tokens (of those hashed) found in `text`, with or without their prefix. */
export function sessionTokensIn(text: string, sessions: ReadonlySet<string>): string[] {
  const found: string[] = [];
  for (const [body] of text.matchAll(TOKEN_BODY)) if (sessions.has(tokenHash(body))) found.push(`session token ${body.slice(0, 6)}…`);
  return found;
}

/**
 * The secrets in `text`. A log or a table may hold no credential of any kind (`extra`: the OAuth tokens the
 * clients hold); a response may carry the client's own tokens, so only our secrets and their shapes count.
 */
export function secretsIn(text: string, secrets: DeploymentSecrets, where: 'log' | 'response', extra: readonly string[] = []): string[] {
  const literals = [...secrets.literals, ...extra];
  const found = where === 'log' ? findLeaks(text, literals) : findLeaks(text, literals, CREDENTIAL_SHAPES);
  return [...found, ...sessionTokensIn(text, secrets.sessions)];
}

/** Every row of every table of the database, as JSON text. */
export async function dumpTables(database: string): Promise<string> {
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  let dump = '';
  try {
    const tables = await client.query(
      "SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema')",
    );
    for (const t of tables.rows) dump += JSON.stringify((await client.query(`SELECT * FROM "${t.table_schema}"."${t.table_name}"`)).rows);
  } finally {
    await client.end();
  }
  return dump;
}

/**
 * A fetch that keeps every response it hands back: status, headers and body (read from a copy as it
 * arrives, so a stream the client holds open is kept as far as it went).
 */
export class ResponseLog {
  readonly #responses: { head: string; body: string }[] = [];

  wrap(inner: typeof fetch = fetch): typeof fetch {
    return async (input, init) => {
      const res = await inner(input, init);
      this.#keep(res);
      return res;
    };
  }

  get count(): number {
    return this.#responses.length;
  }

  #keep(res: Response): void {
    const kept = { head: `${res.status} ${res.url}\n${[...res.headers].map(([k, v]) => `${k}: ${v}`).join('\n')}`, body: '' };
    this.#responses.push(kept);
    const body = res.clone().body;
    if (!body) return;
    const reader = body.getReader();
    const decoder = new TextDecoder();
    const read = async (): Promise<void> => {
      for (let next = await reader.read(); !next.done; next = await reader.read())
        kept.body += decoder.decode(next.value, { stream: true });
    };
    // A stream aborted by its client ends its copy with an error; what arrived before is kept.
    read().catch(() => undefined);
  }

  text(): string {
    return this.#responses.map((r) => `${r.head}\n\n${r.body}`).join('\n\n');
  }
}
