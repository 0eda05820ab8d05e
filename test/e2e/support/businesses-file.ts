// A --businesses file of the test's own, in a folder of its own.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function businessesFile(entries: unknown[]): string {
  const file = join(mkdtempSync(join(tmpdir(), 'businesses-')), 'businesses.json');
  writeFileSync(file, JSON.stringify(entries));
  return file;
}
