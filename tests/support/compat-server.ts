import type { TestKith, TestUser } from "@kith/core/testing";
import { type NodeServer, startNodeServer } from "@kith/http-adapter-node";
import { type mastodon, createRestAPIClient } from "masto";
import type { Engine } from "./engines.js";

/** A Kith served over real HTTP, for real clients (masto.js) to drive. */
export interface CompatServer {
  readonly kith: TestKith;
  readonly server: NodeServer;
  readonly url: string;
  /** A masto.js REST client signed in as `user` (or anonymous). */
  client(user?: TestUser): mastodon.rest.Client;
  close(): Promise<void>;
}

export async function startCompatServer(engine: Engine): Promise<CompatServer> {
  const kith = await engine.testKith();
  // Clients here read the effects of a request right after it: the reactions that follow an answer (a post's fan-out) are waited for.
  const server = await startNodeServer({
    handler: async (request, info) => {
      const response = await kith.fetch(request, info);
      await kith.services.events.settled();
      return response;
    },
  });
  return {
    kith,
    server,
    url: server.url,
    client: (user) => createRestAPIClient({ url: server.url, accessToken: user?.token }),
    close: async () => {
      await server.close();
      await kith.close();
    },
  };
}
