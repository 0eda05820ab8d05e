// The audit log: every sign-in and every call, refused ones included, kept 90 days on the sandbox clock.

const RETENTION_MS = 90 * 24 * 3600 * 1000;
// A bound on memory for a sandbox left running under load; far above what any test or demo reads.
const MAX_ENTRIES = 200_000;

export interface RequestLogEntry {
  at: number;
  method: string;
  path: string;
  status: number;
  ms: number;
  key_id: string | null;
  error: string | null;
}

export interface SignInLogEntry {
  at: number;
  key_id: string | null;
  ip: string;
  status: number;
  error: string | null;
}

// Secrets and session tokens never enter the log, even when a client sends one where the key ID or a
// query parameter belongs: anything with their prefixes is cut back to the prefix.
const CREDENTIAL_RE = /(svc_(?:live|test)_|svcat_)[A-Za-z0-9_-]+/g;

export function redact<T extends string | null>(text: T): T {
  return (text === null ? null : text.replace(CREDENTIAL_RE, '$1[redacted]')) as T;
}

export class AuditLog {
  readonly requests: RequestLogEntry[] = [];
  readonly signins: SignInLogEntry[] = [];

  recordRequest(raw: RequestLogEntry): void {
    const entry = { ...raw, path: redact(raw.path), key_id: redact(raw.key_id), error: redact(raw.error) };
    this.requests.push(entry);
    if (this.requests.length > MAX_ENTRIES) this.requests.splice(0, this.requests.length - MAX_ENTRIES);
  }

  recordSignIn(raw: SignInLogEntry): void {
    const entry = { ...raw, key_id: redact(raw.key_id), error: redact(raw.error) };
    this.signins.push(entry);
    if (this.signins.length > MAX_ENTRIES) this.signins.splice(0, this.signins.length - MAX_ENTRIES);
  }

  /** Drops entries past retention; both logs are in time order, so the old ones are at the front. */
  prune(nowMs: number): void {
    for (const log of [this.requests, this.signins] as { at: number }[][]) {
      let drop = 0;
      while (drop < log.length && nowMs - (log[drop] as { at: number }).at > RETENTION_MS) drop++;
      if (drop > 0) log.splice(0, drop);
    }
  }
}
