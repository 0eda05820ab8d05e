// The two files of undici that src/core/undici-core.ts loads by path: they exist in the installed version
// and answer as the package's own Agent and request do.
import { createServer, type Server } from 'node:http';
import { Agent as PackageAgent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, dispatch } from '../../src/core/undici-core.js';

let server: Server;
let origin = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ method: req.method, url: req.url }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  origin = `http://127.0.0.1:${address.port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('undici-core', () => {
  it.each([
    ['its own Agent', () => new Agent({ connections: 1 })],
    ["the package's Agent", () => new PackageAgent({ connections: 1 })],
  ])('sends a request through %s', async (_name, make) => {
    const agent = make();
    try {
      const res = await dispatch(agent, { origin, path: '/api/v1/invoices?limit=2', method: 'POST', body: '{}' });
      expect(res.statusCode).toBe(200);
      expect(await res.body.json()).toEqual({ method: 'POST', url: '/api/v1/invoices?limit=2' });
    } finally {
      await agent.close();
    }
  });

  it('loads an Agent of the same class as the package exports', () => {
    expect(new Agent()).toBeInstanceOf(PackageAgent);
  });
});
