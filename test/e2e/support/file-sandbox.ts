// One sandbox for a test file, started before its tests and closed after them, and the environment of a
// server on its test key: test mode on the same sample books as the embedded sandbox, without each server
// starting a sandbox of its own (generating the books is most of a server's start on the embedded one).
import { afterAll, beforeAll } from 'vitest';
import { type SandboxOptions, startTestSandbox, type TestSandbox } from '../../support/sandbox.js';
import { type Env, keyEnv } from './server.js';

export interface FileSandbox {
  sb: TestSandbox;
  /** SVC_BASE_URL, SVC_KEY_ID and SVC_SECRET of the sandbox's test key. */
  env: Env;
}

/** Call at the top of a file (or a describe): the fields are set once its beforeAll hooks have run. */
export function sandboxForFile(options: SandboxOptions = {}): FileSandbox {
  const file = {} as FileSandbox;
  beforeAll(async () => {
    file.sb = await startTestSandbox(options);
    file.env = keyEnv(file.sb, file.sb.keys.test);
  });
  afterAll(() => file.sb?.close());
  return file;
}
