import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createKith, type Kith } from "@kith/core";
import { toNodeHandler } from "@kith/http-adapter-node";
import { createSqliteStorage } from "@kith/storage-sqlite";

/**
 * An application with its own node:http server that embeds Kith: it answers
 * `/hello` itself, hands every other request to Kith's fetch handler, and
 * calls a Kith service directly to create an account at start.
 */
export interface Example {
  readonly url: string;
  readonly kith: Kith;
  /** A token of the account created at start, to try the API with. */
  readonly demoToken: string;
  close(): Promise<void>;
}

export async function startExample(options: { port?: number } = {}): Promise<Example> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  // In-memory SQLite: the database lives as long as the process.
  const kith = await createKith({ storage: createSqliteStorage({ filename: ":memory:" }), config: { origin: url } });

  // Services are plain objects: the host application calls them without HTTP.
  const { account } = await kith.services.accounts.createLocalAccount({ username: "demo", email: "demo@example.com", confirmed: true });
  const session = await kith.services.sessions.issue({ accountId: account.id, scopes: ["read", "write"] });

  // The adapter's listener answers malformed requests (a bad Host, a bad target) itself and never throws.
  const toKith = toNodeHandler((request, info) => kith.fetch(request, info));
  server.on("request", (req, res) => {
    if (req.url === "/hello") {
      res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end("Hello from the host application\n");
      return;
    }
    void toKith(req, res);
  });

  return {
    url,
    kith,
    demoToken: session.accessToken,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await kith.close();
    },
  };
}
