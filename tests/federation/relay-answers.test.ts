/**
 * Whose answer to a relay subscription counts: only the relay's (its actor
 * for LitePub's kind, an actor of its inbox's origin for Mastodon's), and
 * only for the subscription's current Follow. Signed deliveries from remote
 * servers on loopback to an instance served in this process.
 */
import { defaultModules, relaysModule } from "@kith/core";
import { type RemoteServer, type TestKith, eventually, startRemoteServer } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";
import { giveGrants } from "../support/roles.js";

const RELAYS = "/api/v1/admin/relays";

interface Relay {
  id: string;
  state: string;
  actor_url: string | null;
}

describeOnEngines("answers to relay subscriptions", (engine) => {
  let relayServer: RemoteServer;
  let mallorys: RemoteServer;
  let kith: TestKith;
  let token: string;

  beforeAll(async () => {
    relayServer = await startRemoteServer(["relay", "other"]);
    mallorys = await startRemoteServer(["mallory"]);
    kith = await engine.testKith({ config: { origin: "https://kith.test", allowPrivateAddress: true } });
    const admin = await kith.createUser("admin");
    await giveGrants(kith, admin.account.id, [{ resource: "Federation", access: ["Read", "Add", "Modify", "Delete"], scope: "global" }]);
    token = admin.token;
    await kith.start();
  });
  afterAll(async () => {
    await kith.close();
    await relayServer.close();
    await mallorys.close();
  });

  const actor = (server: RemoteServer, name: string) => server.actors[name] ?? expect.unreachable(name);
  const relayOf = async (id: string): Promise<Relay> => (await (await kith.request("GET", `${RELAYS}/${id}`, { token })).json()) as Relay;

  /** The ids of the Follows the relay's server received, in order. */
  const follows = () =>
    relayServer.received.flatMap((request) => {
      const body = request.body as { type?: string; id?: string };
      return body.type === "Follow" && body.id ? [body.id] : [];
    });

  async function answer(type: "Accept" | "Reject", from: RemoteServer, name: string, follow: string): Promise<number> {
    const signer = actor(from, name);
    const activity = {
      "@context": "https://www.w3.org/ns/activitystreams",
      id: `${signer.id.href}/answers/${type}-${Math.random().toString(36).slice(2)}`,
      type,
      actor: signer.id.href,
      object: follow,
    };
    const response = await kith.fetch(await from.signedPost("https://kith.test/inbox", activity, signer), { clientIp: "127.0.0.1" });
    return response.status;
  }

  it("takes the answer of a LitePub relay's own actor only, to its current Follow only", async () => {
    expect(kith.routes.some((route) => route.path === RELAYS)).toBe(true);
    expect(kith.module(relaysModule)).toBeDefined();
    const added = await kith.request("POST", RELAYS, { token, json: { actor_url: actor(relayServer, "relay").id.href } });
    expect(added.status).toBe(200);
    const relay = (await added.json()) as Relay;
    await eventually(() => expect(follows()).toHaveLength(1));
    const [first] = follows() as [string];

    // Another server, and another actor of the relay's own server: neither is the relay actor followed.
    expect(await answer("Accept", mallorys, "mallory", first)).toBe(202);
    expect(await answer("Accept", relayServer, "other", first)).toBe(202);
    // The relay's answer to a Follow that is not the subscription's.
    expect(await answer("Accept", relayServer, "relay", `${first}-not-this-one`)).toBe(202);
    expect((await relayOf(relay.id)).state).toBe("pending");

    expect(await answer("Accept", relayServer, "relay", first)).toBe(202);
    await eventually(async () => expect((await relayOf(relay.id)).state).toBe("accepted"));

    // Subscribed again: the old Follow's answers no longer count, the new one's do.
    expect((await kith.request("POST", `${RELAYS}/${relay.id}/disable`, { token })).status).toBe(200);
    expect((await kith.request("POST", `${RELAYS}/${relay.id}/enable`, { token })).status).toBe(200);
    await eventually(() => expect(follows()).toHaveLength(2));
    const second = follows()[1] as string;
    expect(second).not.toBe(first);
    expect(await answer("Accept", relayServer, "relay", first)).toBe(202);
    expect((await relayOf(relay.id)).state).toBe("pending");
    expect(await answer("Reject", relayServer, "relay", second)).toBe(202);
    await eventually(async () => expect((await relayOf(relay.id)).state).toBe("rejected"));
    expect((await kith.request("DELETE", `${RELAYS}/${relay.id}`, { token })).status).toBe(200);
  });

  it("takes the answer of an actor of a Mastodon relay's origin, not of another origin", async () => {
    const added = await kith.request("POST", RELAYS, { token, json: { inbox_url: `${relayServer.origin}/relay-inbox` } });
    const relay = (await added.json()) as Relay;
    await eventually(() => expect(follows()).toHaveLength(3));
    const follow = follows()[2] as string;
    expect(await answer("Accept", mallorys, "mallory", follow)).toBe(202);
    expect((await relayOf(relay.id)).state).toBe("pending");
    expect(await answer("Accept", relayServer, "relay", follow)).toBe(202);
    await eventually(async () =>
      expect(await relayOf(relay.id)).toMatchObject({ state: "accepted", actor_url: actor(relayServer, "relay").id.href }),
    );
  });

  it("has no relays on an instance without the module: no routes, no table, no inboxes", async () => {
    const plain = await engine.testKith({ modules: defaultModules.filter((module) => module !== relaysModule) });
    try {
      expect((await plain.request("GET", RELAYS, { token })).status).toBe(404);
      expect((await plain.storage.describeSchema()).tables.map((table) => table.name)).not.toContain("relays");
      expect(await plain.services.relays.acceptedInboxes()).toEqual([]);
    } finally {
      await plain.close();
    }
  });
});
