// The stdio transport under a flood: thousands of bad lines from a client that reads its answers slowly.
// Each is answered, and the answers waiting for the pipe hold no listener each on stdout (taking thousands
// of them off one by one made a flood cost seconds of CPU).
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LineStdioTransport } from '../../src/transports/stdio-transport.js';

const LINES = 5_000;

/** A stdout that takes nothing until `flow()`: every answer written before waits for the pipe. */
function slowStdout(): { stdout: Writable; written: string[]; flow(): void } {
  const written: string[] = [];
  const held: (() => void)[] = [];
  let flowing = false;
  const stdout = new Writable({
    highWaterMark: 64,
    write(chunk: Buffer, _encoding, callback) {
      written.push(chunk.toString('utf8'));
      if (flowing) callback();
      else held.push(callback);
    },
  });
  return {
    stdout,
    written,
    flow() {
      flowing = true;
      for (const callback of held.splice(0)) callback();
    },
  };
}

describe('a flood of lines of the wrong JSON-RPC version', () => {
  it('is answered line by line, -32600 each, with no listener per waiting answer', async () => {
    const stdin = new PassThrough();
    const { stdout, written, flow } = slowStdout();
    const logged: string[] = [];
    const transport = new LineStdioTransport((kind) => void logged.push(kind), stdin, stdout);
    await transport.start();
    const listenersBefore = stdout.listenerCount('drain') + stdout.listenerCount('error');
    stdin.write(Array.from({ length: LINES }, (_, i) => `{"jsonrpc":"1.0","id":"f${i}","method":"ping"}\n`).join(''));
    await new Promise((resolve) => setImmediate(resolve));
    expect(stdout.listenerCount('drain') + stdout.listenerCount('error')).toBe(listenersBefore);
    flow();
    await new Promise((resolve) => setImmediate(resolve));
    const answers = written
      .join('')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(answers).toHaveLength(LINES);
    expect(answers.every((a, i) => a.id === `f${i}` && a.error.code === -32600)).toBe(true);
    expect(new Set(logged)).toEqual(new Set(['stdio-not-jsonrpc']));
    await transport.close();
  });
});
