// Streamable HTTP at /mcp, stateless, serving both protocol eras. Bound to 127.0.0.1 by default with
// Host and Origin checks; a bearer token when one is set (required beyond loopback).
import { createMcpFastifyApp, originValidation } from '@modelcontextprotocol/fastify';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, type McpServer } from '@modelcontextprotocol/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createHash, timingSafeEqual } from 'node:crypto';
import { isLoopbackHost } from '../api/url.js';

export interface HttpServeOptions {
  host: string;
  port: number;
  httpToken: string | null;
  allowedHosts: readonly string[];
  allowedOrigins: readonly string[];
}

export interface HttpServer {
  url: string;
  app: FastifyInstance;
  close(): Promise<void>;
}

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

function bearerCheck(token: string) {
  const expected = digest(token);
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    if (m && timingSafeEqual(digest(m[1] as string), expected)) return;
    await reply
      .code(401)
      .header('www-authenticate', 'Bearer')
      .send({ error: 'unauthorized', message: 'Send Authorization: Bearer <token>, the token this server was started with.' });
  };
}

export async function serveHttp(factory: () => McpServer, options: HttpServeOptions): Promise<HttpServer> {
  const loopback = isLoopbackHost(options.host);
  const app = createMcpFastifyApp({
    host: options.host,
    ...(options.allowedHosts.length > 0 ? { allowedHosts: [...options.allowedHosts] } : {}),
    ...(options.allowedOrigins.length > 0 ? { allowedOrigins: [...options.allowedOrigins] } : {}),
  });
  // Beyond loopback the SDK checks no Origin unless told: refuse browsers from anywhere not listed.
  if (!loopback && options.allowedOrigins.length === 0) app.addHook('onRequest', originValidation([]));
  if (options.httpToken) app.addHook('onRequest', bearerCheck(options.httpToken));
  const handler = createMcpHandler(factory);
  const node = toNodeHandler(handler);
  app.all('/mcp', (request, reply) => node(request.raw, reply.raw, request.body));
  await app.listen({ host: options.host, port: options.port });
  const address = app.server.address();
  const port = address && typeof address === 'object' ? address.port : options.port;
  const hostPart = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${hostPart}:${port}/mcp`,
    app,
    close: async () => {
      await handler.close();
      await app.close();
    },
  };
}
