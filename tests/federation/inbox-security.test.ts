import { type RemoteServer, type TestKith, eventually, startRemoteServer } from "@kith/core/testing";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { federationSettled } from "../support/remote-activities.js";
import { describeOnEngines } from "../support/engines.js";

/**
 * Incoming activities in one process: requests signed here with keys the
 * test holds, by actors a loopback server serves, sent through the fetch
 * handler. Every refused request leaves no follow, no follow request and
 * no remote account behind, and none is answered with a 500.
 */
describeOnEngines("inbox security", (engine) => {
  let remote: RemoteServer;
  let kith: TestKith;
  let follows = 0;

  beforeAll(async () => {
    remote = await startRemoteServer(["mallory", "eve"]);
  });
  afterAll(async () => {
    await remote.close();
  });
  beforeEach(async () => {
    kith = await engine.testKith({ config: { origin: "https://kith.test", allowPrivateAddress: true } });
    await kith.createUser("alice");
    await kith.start();
  });
  afterEach(async () => {
    await kith.close();
  });

  const mallory = () => remote.actors.mallory ?? expect.unreachable("mallory");
  const eve = () => remote.actors.eve ?? expect.unreachable("eve");

  function followOf(actor = mallory(), id = `${actor.id.href}/follows/${++follows}`): Record<string, unknown> {
    return {
      "@context": "https://www.w3.org/ns/activitystreams",
      id,
      type: "Follow",
      actor: actor.id.href,
      object: "https://kith.test/users/alice",
    };
  }

  async function sideEffects(): Promise<{ follows: number; requests: number; remoteAccounts: number }> {
    await federationSettled(kith);
    const db = kith.storage.db;
    const count = async (table: "follows" | "follow_requests") =>
      Number(
        (
          await db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const remoteAccounts = Number(
      (
        await db
          .selectFrom("accounts")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("domain", "is not", null)
          .executeTakeFirstOrThrow()
      ).n,
    );
    return { follows: await count("follows"), requests: await count("follow_requests"), remoteAccounts };
  }

  const NOTHING = { follows: 0, requests: 0, remoteAccounts: 0 };

  async function post(request: Request): Promise<Response> {
    const response = await kith.fetch(request, { clientIp: "127.0.0.1" });
    expect(response.status).toBeLessThan(500);
    return response;
  }

  for (const inbox of ["https://kith.test/users/alice/inbox", "https://kith.test/inbox"]) {
    it(`accepts a Follow signed with draft-cavage at ${new URL(inbox).pathname} (the case the refusals below are measured against)`, async () => {
      const response = await post(await remote.signedPost(inbox, followOf(), mallory()));
      expect(response.status).toBe(202);
      expect(await sideEffects()).toEqual({ follows: 1, requests: 0, remoteAccounts: 1 });
    });

    it(`refuses an unsigned POST to ${new URL(inbox).pathname}`, async () => {
      const response = await post(
        new Request(inbox, { method: "POST", headers: { "content-type": "application/activity+json" }, body: JSON.stringify(followOf()) }),
      );
      expect(response.status).toBe(401);
      expect(await sideEffects()).toEqual(NOTHING);
    });
  }

  it("accepts a Follow signed with RFC 9421 HTTP Message Signatures", async () => {
    const response = await post(await remote.signedPost("https://kith.test/users/alice/inbox", followOf(), mallory(), { spec: "rfc9421" }));
    expect(response.status).toBe(202);
    expect((await sideEffects()).follows).toBe(1);
  });

  it("refuses a wrong signature (the signature of another request)", async () => {
    const signed = await remote.signedPost("https://kith.test/users/alice/inbox", followOf(), mallory());
    const other = await remote.signedPost(
      "https://kith.test/users/alice/inbox",
      { ...followOf(), id: `${mallory().id.href}/x` },
      mallory(),
    );
    const headers = new Headers(signed.headers);
    const signature = other.headers.get("signature") ?? "";
    headers.set("signature", signature.replace(/signature="[^"]+"/, `signature="${btoa("not the signature")}"`));
    const response = await post(new Request(signed.url, { method: "POST", headers, body: await signed.text() }));
    expect(response.status).toBe(401);
    expect(await sideEffects()).toEqual(NOTHING);
  });

  it("refuses a valid signature by a key that is not the claimed actor's", async () => {
    for (const spec of ["draft-cavage-http-signatures-12", "rfc9421"] as const) {
      const request = await remote.signedPost("https://kith.test/users/alice/inbox", followOf(mallory()), mallory(), {
        keyOf: eve(),
        spec,
      });
      const response = await post(request);
      expect(response.status).toBe(401);
    }
    expect(await sideEffects()).toEqual(NOTHING);
  });

  it("accepts a signature dated two hours ago (a delivery retried with its first signature), as Mastodon does", async () => {
    const date = new Date(Date.now() - 2 * 3_600_000).toUTCString();
    const request = await remote.signedPost("https://kith.test/users/alice/inbox", followOf(), mallory(), { headers: { date } });
    expect(request.headers.get("date")).toBe(date);
    expect((await post(request)).status).toBe(202);
    expect((await sideEffects()).follows).toBe(1);
  });

  it("accepts an RFC 9421 signature created two hours ago", async () => {
    const date = new Date(Date.now() - 2 * 3_600_000).toUTCString();
    const request = await remote.signedPost("https://kith.test/users/alice/inbox", followOf(), mallory(), {
      spec: "rfc9421",
      signedAt: new Date(date),
    });
    expect(request.headers.get("signature-input")).toContain(`created=${Date.parse(date) / 1000}`);
    expect((await post(request)).status).toBe(202);
    expect((await sideEffects()).follows).toBe(1);
  });

  it("refuses a signature dated more than an hour in the future (beyond clock skew)", async () => {
    for (const spec of ["draft-cavage-http-signatures-12", "rfc9421"] as const) {
      const at = Math.floor((Date.now() + 2 * 3_600_000) / 1000) * 1000;
      const request = await remote.signedPost("https://kith.test/users/alice/inbox", followOf(), mallory(), {
        spec,
        headers: { date: new Date(at).toUTCString() },
        signedAt: new Date(at),
      });
      expect((await post(request)).status).toBe(401);
    }
    expect(await sideEffects()).toEqual(NOTHING);
  });

  it("refuses a Date twelve hours and more in the past or in the future", async () => {
    for (const offsetHours of [-13, 13]) {
      const date = new Date(Date.now() + offsetHours * 3_600_000).toUTCString();
      const request = await remote.signedPost("https://kith.test/users/alice/inbox", followOf(), mallory(), { headers: { date } });
      expect(request.headers.get("date")).toBe(date);
      expect((await post(request)).status).toBe(401);
    }
    expect(await sideEffects()).toEqual(NOTHING);
  });

  it("refuses a body that does not match its Digest or Content-Digest", async () => {
    for (const spec of ["draft-cavage-http-signatures-12", "rfc9421"] as const) {
      const signed = await remote.signedPost("https://kith.test/users/alice/inbox", followOf(), mallory(), { spec });
      expect(signed.headers.get(spec === "rfc9421" ? "content-digest" : "digest")).toBeTruthy();
      const tampered = JSON.stringify({ ...followOf(), object: "https://kith.test/users/bob" });
      const response = await post(new Request(signed.url, { method: "POST", headers: signed.headers, body: tampered }));
      expect([400, 401]).toContain(response.status);
    }
    expect(await sideEffects()).toEqual(NOTHING);
  });

  it("has one effect when the same signed activity arrives twice, also at both inboxes", async () => {
    const follow = followOf();
    const first = await remote.signedPost("https://kith.test/users/alice/inbox", follow, mallory());
    const again = first.clone();
    const shared = await remote.signedPost("https://kith.test/inbox", follow, mallory());
    expect((await post(first)).status).toBe(202);
    await federationSettled(kith);
    expect((await post(again)).status).toBeLessThan(300);
    expect((await post(shared)).status).toBeLessThan(300);
    expect(await sideEffects()).toEqual({ follows: 1, requests: 0, remoteAccounts: 1 });
    // The Accept went out once.
    await eventually(() =>
      expect(remote.received.filter((r) => (r.body as { type?: string }).type === "Accept").length).toBeGreaterThan(0),
    );
    const accepts = remote.received.filter(
      (r) => (r.body as { type?: string; object?: unknown }).type === "Accept" && JSON.stringify(r.body).includes(String(follow.id)),
    );
    expect(accepts.length).toBe(1);
  });

  it("ignores an activity whose actor is of another origin than its signer", async () => {
    // Signed by mallory, claiming to be an actor of another server.
    const forged = { ...followOf(), actor: "https://victim.example/users/bob", id: "https://victim.example/follows/1" };
    const response = await post(await remote.signedPost("https://kith.test/users/alice/inbox", forged, mallory()));
    expect(response.status).toBe(401);
    expect(await sideEffects()).toEqual(NOTHING);
  });

  describe("keys of another origin than the actor's", () => {
    /** Another server, with an account whose activities mallory's server must not be able to speak. */
    let other: RemoteServer;
    let keys = 0;
    beforeAll(async () => {
      other = await startRemoteServer(["bob"]);
    });
    afterAll(async () => {
      await other.close();
    });
    const bob = () => other.actors.bob ?? expect.unreachable("bob");

    /** A key served by mallory's server whose document says it is bob's. */
    const keyClaimingBob = () => remote.serveKeyClaiming(`/keys/claiming-bob-${++keys}`, bob().id, mallory());

    it("refuses an activity of bob signed with a key on mallory's server that names bob as its owner", async () => {
      for (const spec of ["draft-cavage-http-signatures-12", "rfc9421"] as const) {
        const key = await keyClaimingBob();
        // Fedify fetches the key for a request of mallory's own (refused: the key is not hers); the next request finds it cached.
        const own = await post(
          await remote.signedPost("https://kith.test/users/alice/inbox", followOf(mallory()), mallory(), { keyOf: key, spec }),
        );
        expect(own.status).toBe(401);
        for (let attempt = 0; attempt < 2; attempt++) {
          const response = await post(
            await remote.signedPost("https://kith.test/users/alice/inbox", followOf(bob()), bob(), { keyOf: key, spec }),
          );
          expect(response.status).toBe(401);
          expect(await response.json()).toMatchObject({ code: "federation.signer_not_actor" });
        }
      }
      expect(await sideEffects()).toEqual(NOTHING);
    });

    it("refuses an activity of bob with a Linked Data signature by a key on mallory's server that names bob as its owner", async () => {
      const key = await keyClaimingBob();
      const signed = await remote.withLdSignature(followOf(bob()), key);
      const response = await post(
        new Request("https://kith.test/users/alice/inbox", {
          method: "POST",
          headers: { "content-type": "application/activity+json" },
          body: JSON.stringify(signed),
        }),
      );
      expect(response.status).toBe(401);
      expect(await sideEffects()).toEqual(NOTHING);
    });

    it("answers 400 for a signed body that is no activity, and 401 for an activity of no actor, which no key vouches for", async () => {
      for (const body of ["text", null]) {
        const response = await post(await remote.signedPost("https://kith.test/inbox", body, mallory()));
        expect(response.status, String(body)).toBe(400);
        expect(await response.json()).toMatchObject({ code: "federation.invalid_activity" });
      }
      const { actor: _, ...actorless } = followOf(mallory());
      const response = await post(await remote.signedPost("https://kith.test/inbox", actorless, mallory()));
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ code: "federation.signer_not_actor" });
      expect(await sideEffects()).toEqual(NOTHING);
    });

    it("answers 401 to an unsigned body that carries no signature of its own, whatever it is, without reading it", async () => {
      const send = (body: string) =>
        post(new Request("https://kith.test/inbox", { method: "POST", headers: { "content-type": "application/activity+json" }, body }));
      const { actor: _, ...actorless } = followOf(mallory());
      for (const body of ["not json", JSON.stringify("text"), "null", JSON.stringify(actorless)]) {
        const response = await send(body);
        expect(response.status, body).toBe(401);
        expect(await response.json()).toMatchObject({ code: "federation.signature_missing" });
      }
      expect(await sideEffects()).toEqual(NOTHING);
    });

    it("takes bob's activity relayed by mallory's server when bob's own key signs it (a relay, a forwarded reply)", async () => {
      const signed = await other.withLdSignature(followOf(bob()), bob());
      const response = await post(await remote.signedPost("https://kith.test/users/alice/inbox", signed, mallory()));
      expect(response.status).toBe(202);
      expect((await sideEffects()).follows).toBe(1);
    });
  });

  it("ignores an activity whose embedded object claims to be of another origin", async () => {
    const undo = {
      "@context": "https://www.w3.org/ns/activitystreams",
      id: `${mallory().id.href}/undo/1`,
      type: "Undo",
      actor: mallory().id.href,
      object: { id: `${eve().id.href}/follows/1`, type: "Follow", actor: eve().id.href, object: "https://kith.test/users/alice" },
    };
    // Eve follows alice for real; mallory tries to undo it.
    expect((await post(await remote.signedPost("https://kith.test/users/alice/inbox", followOf(eve()), eve()))).status).toBe(202);
    expect((await sideEffects()).follows).toBe(1);
    const response = await post(await remote.signedPost("https://kith.test/users/alice/inbox", undo, mallory()));
    expect(response.status).toBe(202);
    expect((await sideEffects()).follows).toBe(1);
  });

  it("refuses a body over the limit with 413, whatever its Content-Type says", async () => {
    const big = { ...followOf(), content: "x".repeat(kith.config.limits.maxJsonBodyBytes) };
    const signed = await remote.signedPost("https://kith.test/inbox", big, mallory());
    const response = await post(signed);
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ code: "request.body_too_large" });
    const headers = new Headers(signed.headers);
    headers.set("content-type", "application/octet-stream");
    headers.delete("content-length");
    const stream = new Request("https://kith.test/inbox", { method: "POST", headers, body: JSON.stringify(big) });
    expect((await post(stream)).status).toBe(413);
    expect(await sideEffects()).toEqual(NOTHING);
  });

  it("answers 401 to a signature by a key whose PEM is no key, and keeps it as unavailable instead of fetching it again", async () => {
    const signer = await remote.serveKeyClaiming("/keys/garbled", mallory().id, mallory());
    remote.serve("/keys/garbled", {
      "@context": "https://w3id.org/security/v1",
      id: signer.rsaKeyId.href,
      type: "CryptographicKey",
      owner: mallory().id.href,
      publicKeyPem: `-----BEGIN PUBLIC KEY-----\n${"A".repeat(64)}\n-----END PUBLIC KEY-----\n`,
    });
    for (const n of [1, 2]) {
      const request = await remote.signedPost("https://kith.test/users/alice/inbox", followOf(), mallory(), { keyOf: signer });
      const response = await post(request);
      expect(response.status, `request ${n}`).toBe(401);
    }
    expect(remote.fetched.filter((request) => request.path === "/keys/garbled")).toHaveLength(1);
    expect(await sideEffects()).toEqual(NOTHING);
  });

  it("accepts an unsigned activity carrying a valid FEP-8b32 integrity proof, and refuses a tampered one", async () => {
    const proved = await remote.withProof(followOf(), mallory());
    expect(proved.proof).toMatchObject({ type: "DataIntegrityProof", cryptosuite: "eddsa-jcs-2022" });
    const tampered = { ...proved, id: `${mallory().id.href}/follows/tampered` };
    const send = (body: unknown) =>
      post(
        new Request("https://kith.test/users/alice/inbox", {
          method: "POST",
          headers: { "content-type": "application/activity+json" },
          body: JSON.stringify(body),
        }),
      );
    expect((await send(tampered)).status).toBe(401);
    expect(await sideEffects()).toEqual(NOTHING);
    expect((await send(proved)).status).toBe(202);
    expect((await sideEffects()).follows).toBe(1);
  });

  it("attaches an integrity proof to outgoing activities, signed with the actor's Ed25519 key", async () => {
    expect((await post(await remote.signedPost("https://kith.test/users/alice/inbox", followOf(), mallory()))).status).toBe(202);
    await eventually(() => expect(remote.received.some((r) => (r.body as { type?: string }).type === "Accept")).toBe(true));
    const accept = remote.received.find((r) => (r.body as { type?: string }).type === "Accept");
    const body = accept?.body as { proof?: { type?: string; cryptosuite?: string; verificationMethod?: string } };
    expect(body.proof).toMatchObject({ type: "DataIntegrityProof", cryptosuite: "eddsa-jcs-2022" });
    const actor = (await (await kith.request("GET", "/users/alice", { headers: { accept: "application/activity+json" } })).json()) as {
      assertionMethod: { id: string; type: string }[];
    };
    expect(actor.assertionMethod.map((method) => method.id)).toContain(body.proof?.verificationMethod);
    // The request was signed too (both forms are spoken; the first knock is RFC 9421).
    expect(accept?.headers["signature-input"] ?? accept?.headers.signature).toBeTruthy();
  });
});
