// `invoicing-mcp mirror status` prints what the books mirror holds (counts per kind, lines coverage,
// watermarks, file or database, size); `invoicing-mcp mirror forget` deletes it. It is found as the server
// finds it: --mirror PATH or a Postgres URL / INVOICING_MCP_MIRROR, else the default file for SVC_BASE_URL
// and SVC_KEY_ID. A Postgres URL is shown without its password.
import { existsSync, rmSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { counted } from '../core/counted.js';
import { type MirrorLocation, redactedUrl, resolveMirrorLocation } from '../store/location.js';
import type { MirrorBooksReport } from '../store/store.js';
import { MIRRORED_KINDS } from '../store/types.js';
import { ConfigError, hasServiceKey, loadServiceConfig, type ServiceEnv } from './service-env.js';

export const MIRROR_USAGE = `usage: invoicing-mcp mirror status [--mirror PATH|postgres://...]   what the local copy of the books holds
       invoicing-mcp mirror forget [--mirror PATH|postgres://...] [--force]   delete it (the next server start reads the books afresh)
Without --mirror, the file of the key in SVC_BASE_URL / SVC_KEY_ID (and SVC_SECRET) is meant.`;

const FILES = (path: string): string[] => [path, `${path}-wal`, `${path}-shm`];

function mirrorLocation(setting: string | null, env: ServiceEnv): MirrorLocation {
  if (setting === null && !hasServiceKey(env) && !env.SVC_BASE_URL) {
    throw new ConfigError(
      '--mirror',
      'no key is set (SVC_BASE_URL, SVC_KEY_ID, SVC_SECRET) and no --mirror PATH given: on the embedded sandbox the mirror lives in memory, so there is no file',
    );
  }
  const config = setting === null ? loadServiceConfig(env) : null;
  return resolveMirrorLocation({ setting, sandbox: false, baseUrl: config?.baseUrl ?? '', keyId: config?.keyId ?? '', env });
}

/** Whose books, then per kind how many and as of when (or that the next start rebuilds them). */
function booksLines(report: MirrorBooksReport): { lines: string[]; current: boolean } {
  const lines = [`Books of: ${report.identity?.replace('|', ', key ') ?? 'unknown'}`];
  if (!report.current)
    return { lines: [...lines, `Schema version ${report.schemaVersion ?? 'unknown'}: the next server start rebuilds it.`], current: false };
  for (const kind of MIRRORED_KINDS) {
    const mark = report.marks.get(kind);
    const when = mark ? `read as of ${mark.syncedAt}, watermark ${mark.watermark ?? 'none'}` : 'first read not finished';
    lines.push(`  ${kind.padEnd(10)} ${String(report.counts?.[kind] ?? 0).padStart(7)}  ${when}`);
  }
  const c = report.coverage;
  lines.push(
    `  lines      ${String(report.counts?.lines ?? 0).padStart(7)}  for ${c?.withLines ?? 0} of ${counted(c?.invoices ?? 0, 'invoice')}`,
  );
  return { lines, current: true };
}

const kib = (bytes: number): string =>
  bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

async function status(path: string): Promise<string> {
  if (!existsSync(path)) return `No mirror at ${path} yet: a server with this key makes it on its first start.`;
  const size = FILES(path).reduce((n, f) => n + (existsSync(f) ? statSync(f).size : 0), 0);
  const { inspectMirrorFile } = await import('../store/sqlite/inspect.js');
  const report = await inspectMirrorFile(path).catch((err: unknown) => err as Error);
  if (report instanceof Error)
    return `Mirror: ${path} (${kib(size)}) cannot be read (${report.message}): the next server start sets it aside and rebuilds it.`;
  const books = booksLines(report);
  const lines = [`Mirror: ${path} (${kib(size)})`, ...books.lines];
  if (!books.current) return lines.join('\n');
  lines.push(report.leaseUntil ? 'A server is syncing it now.' : 'No server is syncing it now.');
  if (report.goneHolderPid !== null) {
    lines.push(`The server that last synced it (process ${report.goneHolderPid}) is no longer running: the next start takes over at once.`);
  }
  return lines.join('\n');
}

async function forget(path: string, force: boolean): Promise<string> {
  if (!existsSync(path)) return `No mirror at ${path}: nothing to forget.`;
  const { inspectMirrorFile } = await import('../store/sqlite/inspect.js');
  const report = await inspectMirrorFile(path).catch(() => null);
  if (report?.leaseUntil && !force) {
    throw new ConfigError(
      '--force',
      `a server is syncing ${path} now: stop it first (or give --force; it would rebuild the file at its next start)`,
    );
  }
  for (const f of FILES(path)) rmSync(f, { force: true });
  return `Forgot the mirror at ${path}.`;
}

async function postgresStatus(url: string): Promise<string> {
  const where = redactedUrl(url);
  const { inspectPostgresMirror } = await import('../store/postgres/inspect.js');
  const report = await inspectPostgresMirror(url).catch((err: unknown) => err as Error);
  if (report instanceof Error) return `Mirror: Postgres ${where} cannot be read (${report.message}).`;
  if (!report.exists) return `No mirror in Postgres ${where} yet: a server with this key makes it on its first start.`;
  const books = booksLines(report);
  const lines = [`Mirror: Postgres ${where} (${kib(report.bytes)})`, ...books.lines];
  if (books.current) lines.push(report.holder ? `A server is syncing it now (${report.holder}).` : 'No server is syncing it now.');
  return lines.join('\n');
}

async function postgresForget(url: string, force: boolean): Promise<string> {
  const where = redactedUrl(url);
  const { forgetPostgresMirror, inspectPostgresMirror } = await import('../store/postgres/inspect.js');
  const report = await inspectPostgresMirror(url);
  if (!report.exists) return `No mirror in Postgres ${where}: nothing to forget.`;
  if (report.holder && !force) {
    throw new ConfigError(
      '--force',
      `a server is syncing the mirror in ${where} now: stop it first (or give --force; it would rebuild it at its next start)`,
    );
  }
  await forgetPostgresMirror(url);
  return `Forgot the mirror in Postgres ${where}.`;
}

export async function runMirrorCommand(argv: string[], env: ServiceEnv): Promise<string> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: { mirror: { type: 'string' }, force: { type: 'boolean' } },
  });
  const action = positionals[0];
  if ((action !== 'status' && action !== 'forget') || positionals.length > 1)
    throw new ConfigError('mirror', `give status or forget\n${MIRROR_USAGE}`);
  const setting = values.mirror ?? (env.INVOICING_MCP_MIRROR?.trim() || null);
  if (setting === 'memory' || setting === 'off')
    return `The mirror is ${setting === 'off' ? 'off' : 'in memory'} (--mirror ${setting}): there is no file.`;
  const location = mirrorLocation(setting, env);
  if (location.kind === 'postgres')
    return action === 'status' ? postgresStatus(location.url) : postgresForget(location.url, values.force === true);
  const path = location.kind === 'file' ? location.path : '';
  return action === 'status' ? status(path) : forget(path, values.force === true);
}
