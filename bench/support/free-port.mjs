// A port nobody listens on right now, for a process whose address must be known before it starts.
import { createServer } from 'node:net';

export async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}
