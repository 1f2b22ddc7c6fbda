// A test server on loopback for the client's transport tests: listens on a free port, closes with its sockets.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

/** Starts `server` on 127.0.0.1 and answers its base URL. */
export async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Closes `server`, dropping kept-alive connections. */
export async function shutdown(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}
