// What a failed SQLite call means for the mirror's file. Only a damaged file is ever set aside; a file that is
// busy, full or not ours to write stays where it is, as it is, and the caller says what is wrong.
export type SqliteFailure = 'corrupt' | 'busy' | 'full' | 'access' | 'other';

const BY_CODE: Record<string, SqliteFailure> = {
  SQLITE_CORRUPT: 'corrupt',
  SQLITE_NOTADB: 'corrupt',
  SQLITE_BUSY: 'busy',
  SQLITE_LOCKED: 'busy',
  SQLITE_FULL: 'full',
  ENOSPC: 'full',
  SQLITE_CANTOPEN: 'access',
  SQLITE_READONLY: 'access',
  SQLITE_PERM: 'access',
  SQLITE_AUTH: 'access',
  EACCES: 'access',
  EPERM: 'access',
  ENOENT: 'access',
  EROFS: 'access',
};

export function failureOf(err: unknown): SqliteFailure {
  const code = (err as { code?: unknown } | null)?.code;
  // Extended codes (SQLITE_CORRUPT_INDEX, SQLITE_BUSY_SNAPSHOT, SQLITE_READONLY_DBMOVED, ...) share their base's meaning.
  const base = typeof code === 'string' ? code.replace(/^(SQLITE_[A-Z]+?)_[A-Z_]+$/, '$1') : '';
  const byCode = BY_CODE[typeof code === 'string' && code in BY_CODE ? code : base];
  if (byCode) return byCode;
  const message = err instanceof Error ? err.message : String(err);
  if (/malformed|not a database/i.test(message)) return 'corrupt';
  if (/disk is full|no space/i.test(message)) return 'full';
  return 'other';
}

export const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));
