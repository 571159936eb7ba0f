/**
 * A test Kith served over real HTTP on a loopback port (origin
 * `http://127.0.0.1:<port>`), for tests where another server (a
 * `startRemoteServer` one) delivers to it and it fetches from that server,
 * each over the wire.
 */
import type { TestKith } from "@kith/core/testing";
import { startNodeServer } from "@kith/http-adapter-node";
import type { Engine, EngineKithOptions } from "./engines.js";
import { freePort } from "./federation-harness.js";

export interface ServedKith {
  readonly kith: TestKith;
  /** e.g. http://127.0.0.1:41234 */
  readonly origin: string;
  close(): Promise<void>;
}

/** Starts a test Kith of `engine` (private addresses allowed, its workers running) and serves it. */
export async function serveKith(engine: Engine, options: EngineKithOptions = {}): Promise<ServedKith> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const kith = await engine.testKith({ ...options, config: { origin, allowPrivateAddress: true, ...options.config } });
  const server = await startNodeServer({ handler: (request, info) => kith.fetch(request, info), host: "127.0.0.1", port });
  await kith.start();
  return {
    kith,
    origin,
    async close() {
      await server.close();
      await kith.close();
    },
  };
}
