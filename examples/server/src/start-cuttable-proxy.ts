import type { AddressInfo } from 'node:net';
import { connect, createServer, type Socket } from 'node:net';

/** A TCP proxy started by {@link startCuttableProxy}. */
export interface CuttableProxy {
  /** `http://127.0.0.1:<port>`: the target, through the proxy. */
  url: string;
  /** Drops every open connection, and refuses new ones for `refuseMs`. */
  cut(refuseMs: number): void;
  close(): Promise<void>;
}

/**
 * A TCP proxy on loopback to `127.0.0.1:<targetPort>` whose connections a test can drop, to see a client
 * survive a network failure mid-stream (what a flaky proxy or Wi-Fi does to a real page).
 */
export async function startCuttableProxy(targetPort: number): Promise<CuttableProxy> {
  const sockets = new Set<Socket>();
  let refuseUntil = 0;
  const server = createServer((client) => {
    if (Date.now() < refuseUntil) {
      client.destroy();
      return;
    }
    const upstream = connect(targetPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => sockets.delete(socket));
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    cut(refuseMs) {
      refuseUntil = Date.now() + refuseMs;
      for (const socket of sockets) socket.destroy();
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
