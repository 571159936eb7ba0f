/**
 * Kith instances in this process, each served over real HTTP on its own
 * loopback port (origin `http://127.0.0.1:<port>`), federating with each
 * other: deliveries, signed fetches and key fetches all go over the wire.
 * WebFinger is looked up over https by design; here its requests (and only
 * requests to these loopback servers) are sent over plain http instead,
 * through the real safe fetch. Cheaper than separate processes, for tests
 * that need two servers but not process isolation.
 */
import { type KithConfigInput, createSafeFetch, type SafeFetch } from "@kith/core";
import type { TestKith } from "@kith/core/testing";
import { type NodeServer, startNodeServer } from "@kith/http-adapter-node";
import { freePort } from "./federation-harness.js";

export { eventually } from "./federation-api.js";
import type { Engine } from "./engines.js";

export interface PairedKith {
  readonly kith: TestKith;
  /** e.g. http://127.0.0.1:41234 */
  readonly origin: string;
  /** e.g. 127.0.0.1:41234, the host part of handles */
  readonly host: string;
}

export interface KithPair {
  readonly a: PairedKith;
  readonly b: PairedKith;
  close(): Promise<void>;
}

/** The safe fetch (private addresses allowed), with https to these loopback hosts turned into http. */
function loopbackFetch(hosts: ReadonlySet<string>): SafeFetch {
  const safe = createSafeFetch({ allowPrivateAddress: true });
  return (input, init) => {
    const url = new URL(input);
    if (url.protocol === "https:" && hosts.has(url.host)) url.protocol = "http:";
    return safe(url, init);
  };
}

/** What a test may set of an instance's configuration (its origin and private-address rule are the pair's). */
export type PairedConfig = Omit<Partial<KithConfigInput>, "origin" | "allowPrivateAddress">;

async function startOne(engine: Engine, hosts: Set<string>, config: PairedConfig = {}): Promise<{ paired: PairedKith; server: NodeServer }> {
  const port = await freePort();
  const host = `127.0.0.1:${port}`;
  hosts.add(host);
  const origin = `http://${host}`;
  const kith = await engine.testKith({ config: { ...config, origin, allowPrivateAddress: true }, federationFetch: loopbackFetch(hosts) });
  const server = await startNodeServer({ handler: (request, info) => kith.fetch(request, info), host: "127.0.0.1", port });
  await kith.start();
  return { paired: { kith, origin, host }, server };
}

/**
 * Two federating instances, a and b, each on a database of its own of `engine`, `a` with `config.a` and `b` with
 * `config.b`. Close them in afterAll/afterEach.
 */
export async function startKithPair(engine: Engine, config: { a?: PairedConfig; b?: PairedConfig } = {}): Promise<KithPair> {
  const hosts = new Set<string>();
  const first = await startOne(engine, hosts, config.a);
  const second = await startOne(engine, hosts, config.b);
  return {
    a: first.paired,
    b: second.paired,
    async close() {
      for (const { paired, server } of [first, second]) {
        await server.close();
        await paired.kith.close();
      }
    },
  };
}

/** One instance served over HTTP on loopback as the pair's are, to exchange with a scripted remote server. */
export async function startServedKith(engine: Engine, config: PairedConfig = {}): Promise<PairedKith & { close(): Promise<void> }> {
  const { paired, server } = await startOne(engine, new Set<string>(), config);
  return {
    ...paired,
    async close() {
      await server.close();
      await paired.kith.close();
    },
  };
}
