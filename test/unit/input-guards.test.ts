// What the server does with bad input before it reaches a tool: strict arguments, resource ids, the id
// of a stdio line too big to parse, and the log that counts repeats instead of writing each.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { createLogger } from '../../src/log/logger.js';
import { throttledLog } from '../../src/log/throttle.js';
import { decimalId } from '../../src/mcp/resource-id.js';
import { argumentProblems } from '../../src/mcp/strict-args.js';
import { sniffId } from '../../src/transports/stdio-transport.js';

describe('tool arguments', () => {
  const schema = z.object({
    search: z.string().optional(),
    lines: z.array(z.object({ description: z.string(), quantity: z.number() })).optional(),
  });
  it('refuse an unknown name, naming it and the ones the tool takes', () => {
    const [issue, ...rest] = argumentProblems('list_things', schema, { name: 'Acme' });
    expect(rest).toEqual([]);
    expect(issue?.message).toBe('unknown argument "name": list_things takes search, lines. Nothing was done; call again without it.');
  });
  it.each(['constructor', 'valueOf', 'hasOwnProperty', 'toString', '__proto__'])(
    'refuse %j as unknown, not as a property of every object',
    (key) => {
      const args = JSON.parse(`{"${key}": 1, "lines": [{"description": "a", "quantity": 1, "${key}": 2}]}`);
      const issues = argumentProblems('list_things', schema, args);
      expect(issues.map((i) => i.message)).toEqual([
        `unknown argument "${key}": list_things takes search, lines. Nothing was done; call again without it.`,
        `unknown field "${key}" in lines[0]: that object takes description, quantity. Nothing was done; call again without it.`,
      ]);
    },
  );
  it('follow optional, nullable, default and pipe wrappers to the object inside', () => {
    const wrapped = z.object({
      a: z.object({ x: z.string() }).nullable().optional(),
      b: z.object({ y: z.string() }).default({ y: 'y' }),
      c: z
        .string()
        .transform((v) => v)
        .pipe(z.string()),
    });
    expect(argumentProblems('t', wrapped, { a: { x: '1', z: 1 }, b: { y: '2', w: 2 } }).map((i) => i.message.slice(0, 28))).toEqual([
      'unknown field "z" in a: that',
      'unknown field "w" in b: that',
    ]);
  });
  it('refuse an unknown field inside a list item, saying where', () => {
    const [issue] = argumentProblems('t', schema, {
      lines: [
        { description: 'a', quantity: 1 },
        { description: 'b', quantity: 1, price: 2 },
      ],
    });
    expect(issue?.message).toMatch(/^unknown field "price" in lines\[1\]: that object takes description, quantity\./);
  });
  it('refuse a lone surrogate anywhere, and take paired ones', () => {
    expect(argumentProblems('t', schema, { search: 'caf\ud800' })[0]?.path).toEqual(['search']);
    expect(argumentProblems('t', schema, { lines: [{ description: '\udc00', quantity: 1 }] })[0]?.path).toEqual([
      'lines',
      0,
      'description',
    ]);
    expect(argumentProblems('t', schema, { search: 'emoji 😀 ok' })).toEqual([]);
  });
});

describe('resource ids', () => {
  it.each([
    ['16', 16],
    ['9007199254740991', 9007199254740991],
  ])('%s is %d', (raw, id) => expect(decimalId(raw)).toBe(id));
  it.each(['0x10', '1e3', '016', '0', '-1', ' 7', '7 ', '1.0', '', '+5', '٣'])('%j names no record', (raw) =>
    expect(decimalId(raw)).toBeNaN(),
  );
});

describe('the id of a stdio message too big to parse', () => {
  it('is found at its start or its end, or not at all', () => {
    expect(sniffId('{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"x":"aaaa', '')).toBe(42);
    expect(sniffId('{"id":"req-1","method"', '')).toBe('req-1');
    expect(sniffId('{"method":"tools/call","params":{"a":"', 'aaaa"}},"jsonrpc":"2.0","id":7}')).toBe(7);
    expect(sniffId('{"method":"x","params":{"id":3,', 'aaaa"}}')).toBeNull();
  });
});

describe('the throttled log', () => {
  it('writes the first of a kind at once and the rest as one count when the window ends', async () => {
    const lines: any[] = [];
    const logger = createLogger({
      level: 'debug',
      destination: new Writable({
        write: (c, _e, done) => {
          lines.push(JSON.parse(String(c)));
          done();
        },
      }),
    });
    const log = throttledLog(logger, 100);
    for (let i = 0; i < 1000; i++) log('bad-line', 'warn', { n: i }, 'a bad line');
    log('other', 'debug', {}, 'another kind');
    expect(lines.map((l) => l.msg)).toEqual(['a bad line', 'another kind']);
    await new Promise((r) => setTimeout(r, 200));
    expect(lines.length).toBe(3);
    expect(lines[2]).toMatchObject({ kind: 'bad-line', repeated: 999 });
    log('bad-line', 'warn', {}, 'a bad line');
    expect(lines.length).toBe(4);
  });
});
