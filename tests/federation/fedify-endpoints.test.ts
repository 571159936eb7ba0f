import { createPublicKey, generateKeyPairSync } from "node:crypto";
import type { TestKith } from "@kith/core/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";

const AP = "application/activity+json";
const LD = 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"';

describeOnEngines("Fedify endpoints", (engine) => {
  let kith: TestKith;
  beforeEach(async () => {
    kith = await engine.testKith();
  });
  afterEach(async () => {
    await kith.close();
  });

  async function json(path: string, accept = AP): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await kith.request("GET", path, { headers: { accept } });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  }

  it("answers WebFinger for a local account, with the actor as the self link", async () => {
    await kith.createUser("alice");
    const { status, body } = await json("/.well-known/webfinger?resource=acct:alice@kith.test", "application/jrd+json");
    expect(status).toBe(200);
    expect(body.subject).toBe("acct:alice@kith.test");
    const links = body.links as { rel: string; type?: string; href?: string }[];
    expect(links).toContainEqual(expect.objectContaining({ rel: "self", type: AP, href: "https://kith.test/users/alice" }));
  });

  it("answers 404 to WebFinger for unknown accounts and other domains", async () => {
    await kith.createUser("alice");
    expect((await kith.request("GET", "/.well-known/webfinger?resource=acct:nobody@kith.test")).status).toBe(404);
    expect((await kith.request("GET", "/.well-known/webfinger?resource=acct:alice@elsewhere.example")).status).toBe(404);
  });

  it("finds the instance actor by acct:<host>@<host>", async () => {
    const { status, body } = await json("/.well-known/webfinger?resource=acct:kith.test@kith.test", "application/jrd+json");
    expect(status).toBe(200);
    const self = (body.links as { rel: string; href?: string }[]).find((link) => link.rel === "self");
    expect(self?.href).toBe("https://kith.test/users/instance.actor");
    const actor = await json("/users/instance.actor");
    expect(actor.body.type).toBe("Application");
    expect(actor.body.publicKey).toBeTruthy();
  });

  it("serves a local account as a Person with collections, inboxes and both keys", async () => {
    const { account } = await kith.createUser("alice");
    await kith.storage.db
      .updateTable("accounts")
      .set({ display_name: "Alice", note: "<p>hi</p>", locked: true })
      .where("id", "=", account.id)
      .execute();
    for (const accept of [AP, LD]) {
      const { status, body } = await json("/users/alice", accept);
      expect(status).toBe(200);
      expect(body).toMatchObject({
        id: "https://kith.test/users/alice",
        type: "Person",
        preferredUsername: "alice",
        name: "Alice",
        summary: "<p>hi</p>",
        url: "https://kith.test/@alice",
        manuallyApprovesFollowers: true,
        inbox: "https://kith.test/users/alice/inbox",
        outbox: "https://kith.test/users/alice/outbox",
        followers: "https://kith.test/users/alice/followers",
        following: "https://kith.test/users/alice/following",
        featured: "https://kith.test/users/alice/collections/featured",
        endpoints: { sharedInbox: "https://kith.test/inbox" },
      });
      expect(typeof body.published).toBe("string");
      expect((body.publicKey as { id: string; publicKeyPem: string }).publicKeyPem).toContain("BEGIN PUBLIC KEY");
      const methods = body.assertionMethod as { type: string }[];
      expect(methods.map((method) => method.type)).toEqual(["Multikey", "Multikey"]);
    }
  });

  it("serves bots as Service and group actors as Group", async () => {
    const bot = await kith.createUser("robot");
    const group = await kith.createUser("club");
    await kith.storage.db.updateTable("accounts").set({ actor_type: "Service" }).where("id", "=", bot.account.id).execute();
    await kith.storage.db.updateTable("accounts").set({ actor_type: "Group" }).where("id", "=", group.account.id).execute();
    expect((await json("/users/robot")).body.type).toBe("Service");
    expect((await json("/users/club")).body.type).toBe("Group");
  });

  it("answers 404 for unknown and suspended actors, and passes browsers on", async () => {
    const { account } = await kith.createUser("gone");
    expect((await kith.request("GET", "/users/nobody", { headers: { accept: AP } })).status).toBe(404);
    await kith.storage.db
      .updateTable("accounts")
      .set({ suspended_at: kith.clock.now().toISOString() })
      .where("id", "=", account.id)
      .execute();
    expect((await kith.request("GET", "/users/gone", { headers: { accept: AP } })).status).toBe(404);
    await kith.createUser("shown");
    const browser = await kith.request("GET", "/users/shown", { headers: { accept: "text/html" } });
    expect(browser.headers.get("content-type") ?? "").not.toContain("activity+json");
  });

  it("keeps key pairs: the same keys after a restart on the same database", async () => {
    await kith.createUser("alice");
    const first = (await json("/users/alice")).body.publicKey as { publicKeyPem: string };
    const again = (await json("/users/alice")).body.publicKey as { publicKeyPem: string };
    expect(again.publicKeyPem).toBe(first.publicKeyPem);
    const rows = await kith.storage.db.selectFrom("actor_key_pairs").select(["algorithm"]).execute();
    expect(rows.map((row) => row.algorithm).sort()).toEqual(["Ed25519", "RSASSA-PKCS1-v1_5"]);
  });

  it("makes 2048-bit RSA keys, as Mastodon does, and keeps a larger key made before", async () => {
    await kith.createUser("alice");
    const modulusOf = (pem: string) => createPublicKey(pem).asymmetricKeyDetails?.modulusLength;
    const made = (await json("/users/alice")).body.publicKey as { publicKeyPem: string };
    expect(modulusOf(made.publicKeyPem)).toBe(2048);

    const { account } = await kith.createUser("elder");
    const old = generateKeyPairSync("rsa", { modulusLength: 4096 });
    await kith.storage.db
      .insertInto("actor_key_pairs")
      .values({
        owner_id: account.id,
        algorithm: "RSASSA-PKCS1-v1_5",
        public_jwk: JSON.stringify({ ...old.publicKey.export({ format: "jwk" }), alg: "RS256", key_ops: ["verify"], ext: true }),
        private_jwk: JSON.stringify({ ...old.privateKey.export({ format: "jwk" }), alg: "RS256", key_ops: ["sign"], ext: true }),
        created_at: kith.clock.now().toISOString(),
      })
      .execute();
    const kept = (await json("/users/elder")).body.publicKey as { publicKeyPem: string };
    expect(modulusOf(kept.publicKeyPem)).toBe(4096);
  });

  it("serves NodeInfo 2.1 with software, usage and registrations", async () => {
    await kith.createUser("alice");
    await kith.createUser("bob");
    const discovery = await json("/.well-known/nodeinfo", "application/json");
    expect(discovery.status).toBe(200);
    const links = discovery.body.links as { rel: string; href: string }[];
    expect(links[0]?.href).toBe("https://kith.test/nodeinfo/2.1");
    const { status, body } = await json("/nodeinfo/2.1", "application/json");
    expect(status).toBe(200);
    expect(body).toMatchObject({
      version: "2.1",
      software: { name: "kith", version: kith.config.version },
      protocols: ["activitypub"],
      openRegistrations: true,
      usage: { users: { total: 2 }, localPosts: 0 },
    });
    await kith.services.settings.update({ registrationsMode: "closed" });
    expect((await json("/nodeinfo/2.1", "application/json")).body.openRegistrations).toBe(false);
  });
});
