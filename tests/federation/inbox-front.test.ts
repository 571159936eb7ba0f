import {
  type RemoteActor,
  type RemoteServer,
  type TestKith,
  eventually,
  startRemoteServer,
  vocab,
} from "@kith/core/testing";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";

// The front is what these tests are about: on even when a run turns the speed-ups off (KITH_OPTIMISATIONS_OFF).
const CONFIG = { origin: "https://kith.test", allowPrivateAddress: true, optimisations: { inboxFront: true } };

function newRsaKeyPair(): Promise<CryptoKeyPair> {
  const algorithm = { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" };
  return crypto.subtle.generateKey(algorithm, true, ["sign", "verify"]);
}

/**
 * The inbox front answers POSTs signed by a key Fedify fetched before and
 * leaves the rest to Fedify. Each case here first lets Fedify fetch the
 * sender's key (one accepted Follow), so the request under test reaches the
 * front; the counts say which of the two answered. Whatever the front
 * refuses, Fedify answers as it did before the front existed.
 */
describeOnEngines("inbox front", (engine) => {
  let remote: RemoteServer;
  let kith: TestKith;
  let count = 0;

  beforeAll(async () => {
    remote = await startRemoteServer(["mallory", "eve", "trent"]);
  });
  afterAll(async () => {
    await remote.close();
  });
  beforeEach(async () => {
    kith = await engine.testKith({ config: CONFIG });
    await kith.createUser("alice");
    await kith.start();
  });
  afterEach(async () => {
    await kith.close();
  });

  const mallory = () => remote.actors.mallory ?? expect.unreachable("mallory");
  const eve = () => remote.actors.eve ?? expect.unreachable("eve");
  const ALICE_INBOX = "https://kith.test/users/alice/inbox";
  const SPECS = ["draft-cavage-http-signatures-12", "rfc9421"] as const;

  function activityOf(type: string, object: unknown, actor: RemoteActor = mallory()): Record<string, unknown> {
    return {
      "@context": "https://www.w3.org/ns/activitystreams",
      id: `${actor.id.href}/activities/${++count}`,
      type,
      actor: actor.id.href,
      object,
    };
  }

  const followOf = (actor: RemoteActor = mallory()) => activityOf("Follow", "https://kith.test/users/alice", actor);

  async function counts(): Promise<{ accepted: number; passed: number }> {
    const { accepted, passed } = (await kith.federation.load()).inboxFront;
    return { accepted, passed };
  }

  async function settle(): Promise<void> {
    await eventually(async () => {
      const queued = await kith.queue.counts("federation");
      expect(queued.submitted + queued.active).toBe(0);
    });
  }

  async function follows(): Promise<number> {
    await settle();
    const row = await kith.storage.db
      .selectFrom("follows")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async function post(request: Request): Promise<Response> {
    const response = await kith.fetch(request, { clientIp: "127.0.0.1" });
    expect(response.status).toBeLessThan(500);
    return response;
  }

  /** Has Fedify fetch and cache the actor's key: a Follow of alice that it verifies (the front does not know the key yet). */
  async function warm(actor: RemoteActor = mallory()): Promise<void> {
    const before = await counts();
    expect((await post(await remote.signedPost(ALICE_INBOX, followOf(actor), actor))).status).toBe(202);
    expect((await counts()).passed).toBe(before.passed + 1);
    await settle();
  }

  /** What `request` changes in the counts, and its answer. */
  async function answered(request: Request): Promise<{ response: Response; accepted: number; passed: number }> {
    const before = await counts();
    const response = await post(request);
    const after = await counts();
    return { response, accepted: after.accepted - before.accepted, passed: after.passed - before.passed };
  }

  for (const spec of SPECS) {
    for (const inbox of [ALICE_INBOX, "https://kith.test/inbox"]) {
      it(`answers a ${spec} POST to ${new URL(inbox).pathname} by a known key itself, as Fedify answers it`, async () => {
        const viaFedify = await post(await remote.signedPost(inbox, followOf(), mallory(), { spec }));
        await settle();
        const { response, accepted } = await answered(await remote.signedPost(inbox, followOf(eve()), eve(), { spec }));
        // Eve's key was not known: Fedify fetched it and answered. Her second Follow goes through the front.
        expect(accepted).toBe(0);
        await settle();
        const second = await answered(await remote.signedPost(inbox, followOf(eve()), eve(), { spec }));
        expect(second.accepted).toBe(1);
        for (const each of [viaFedify, response, second.response]) {
          expect(each.status).toBe(202);
          expect(each.headers.get("content-type")).toBe("text/plain; charset=utf-8");
          expect(await each.text()).toBe("");
        }
        expect(await follows()).toBe(2);
      });
    }
  }

  it("stores a Create through the front, and a repeat of it once", async () => {
    await warm();
    const note = {
      type: "Note",
      id: `${mallory().id.href}/statuses/${++count}`,
      attributedTo: mallory().id.href,
      content: "<p>hi</p>",
      to: ["https://www.w3.org/ns/activitystreams#Public"],
    };
    const create = { ...activityOf("Create", note), to: ["https://www.w3.org/ns/activitystreams#Public"] };
    for (let i = 0; i < 2; i++) {
      const { response, accepted } = await answered(await remote.signedPost("https://kith.test/inbox", create, mallory()));
      expect(response.status).toBe(202);
      expect(accepted).toBe(1);
    }
    await settle();
    const rows = await kith.storage.db.selectFrom("statuses").select("uri").where("uri", "=", note.id).execute();
    expect(rows.length).toBe(1);
  });

  it("refuses through Fedify a signature that does not verify, then reads the key again", async () => {
    await warm();
    const signed = await remote.signedPost(ALICE_INBOX, followOf(), mallory());
    const headers = new Headers(signed.headers);
    headers.set("signature", (headers.get("signature") ?? "").replace(/signature="[^"]+"/, `signature="${btoa("not the signature")}"`));
    const { response, passed } = await answered(new Request(signed.url, { method: "POST", headers, body: await signed.text() }));
    expect(response.status).toBe(401);
    expect(passed).toBe(1);
    expect(await follows()).toBe(1);
    const again = await answered(await remote.signedPost(ALICE_INBOX, followOf(), mallory()));
    expect(again.response.status).toBe(202);
    expect(again.accepted).toBe(1);
  });

  it("refuses through Fedify a body that does not match its digest, and one without a digest", async () => {
    await warm();
    for (const spec of SPECS) {
      const signed = await remote.signedPost(ALICE_INBOX, followOf(), mallory(), { spec });
      const tampered = JSON.stringify({ ...followOf(), object: "https://kith.test/users/alice" });
      const wrong = await answered(new Request(signed.url, { method: "POST", headers: signed.headers, body: tampered }));
      expect([400, 401]).toContain(wrong.response.status);
      expect(wrong.accepted).toBe(0);
      const headers = new Headers(signed.headers);
      headers.delete(spec === "rfc9421" ? "content-digest" : "digest");
      const missing = await answered(new Request(signed.url, { method: "POST", headers, body: await signed.text() }));
      expect(missing.response.status).toBe(401);
      expect(missing.accepted).toBe(0);
    }
    expect(await follows()).toBe(1);
  });

  it("refuses through Fedify a signature dated more than twelve hours back, or ahead", async () => {
    await warm();
    for (const spec of SPECS) {
      for (const offsetHours of [-13, 2, 13]) {
        const at = new Date(Math.floor((Date.now() + offsetHours * 3_600_000) / 1000) * 1000);
        const request = await remote.signedPost(ALICE_INBOX, followOf(), mallory(), {
          spec,
          headers: { date: at.toUTCString() },
          signedAt: at,
        });
        const { response, accepted } = await answered(request);
        expect(response.status).toBe(401);
        expect(accepted).toBe(0);
      }
    }
    expect(await follows()).toBe(1);
  });

  it("refuses through Fedify a known key that is not the actor's, and an actor of another host than the key", async () => {
    await warm(mallory());
    await warm(eve());
    for (const spec of SPECS) {
      const byEve = await answered(await remote.signedPost(ALICE_INBOX, followOf(mallory()), mallory(), { keyOf: eve(), spec }));
      expect(byEve.response.status).toBe(401);
      expect(byEve.accepted).toBe(0);
      const forged = { ...followOf(), actor: "https://victim.example/users/bob", id: "https://victim.example/follows/1" };
      const elsewhere = await answered(await remote.signedPost(ALICE_INBOX, forged, mallory(), { spec }));
      expect(elsewhere.response.status).toBe(401);
      expect(elsewhere.accepted).toBe(0);
    }
    expect(await follows()).toBe(2);
  });

  it("leaves a rotated key to Fedify, which fetches the new one; then takes it", async () => {
    const trent = remote.actors.trent ?? expect.unreachable("trent");
    await warm(trent);
    const rotated: RemoteActor = { ...trent, rsa: await newRsaKeyPair() };
    const person = new vocab.Person({
      id: trent.id,
      preferredUsername: trent.name,
      inbox: trent.inbox,
      publicKey: new vocab.CryptographicKey({ id: trent.rsaKeyId, owner: trent.id, publicKey: rotated.rsa.publicKey }),
    });
    remote.serve(trent.id.pathname, await person.toJsonLd());
    const first = await answered(
      await remote.signedPost(ALICE_INBOX, activityOf("Follow", "https://kith.test/users/alice", rotated), rotated),
    );
    expect(first.response.status).toBe(202);
    expect(first.passed).toBe(1);
    await settle();
    const unfollow = activityOf(
      "Undo",
      { id: `${trent.id.href}/activities/${count - 1}`, type: "Follow", actor: trent.id.href, object: "https://kith.test/users/alice" },
      rotated,
    );
    const second = await answered(await remote.signedPost(ALICE_INBOX, unfollow, rotated));
    expect(second.response.status).toBe(202);
    expect(second.accepted).toBe(1);
    // The old key no longer passes the front.
    const old = await answered(await remote.signedPost(ALICE_INBOX, followOf(trent), trent));
    expect(old.accepted).toBe(0);
  });

  it("answers 404 for a personal inbox of nobody, as Fedify does", async () => {
    await warm();
    const viaFront = await answered(await remote.signedPost("https://kith.test/users/nobody/inbox", followOf(), mallory()));
    expect(viaFront.response.status).toBe(404);
    expect(viaFront.accepted).toBe(0);
  });

  it("has one effect of a repeated Undo, and shares what was handled with Fedify", async () => {
    const follow = followOf();
    // Fedify answers the first (the key is new) and remembers the Follow; the front finds it remembered.
    expect((await post(await remote.signedPost(ALICE_INBOX, follow, mallory()))).status).toBe(202);
    await settle();
    const repeated = await answered(await remote.signedPost(ALICE_INBOX, follow, mallory()));
    expect(repeated.accepted).toBe(1);
    expect(await repeated.response.text()).toBe(`Activity <${String(follow.id)}> has already been processed.`);
    const undo = activityOf("Undo", follow);
    const first = await answered(await remote.signedPost(ALICE_INBOX, undo, mallory()));
    expect(first.response.status).toBe(202);
    expect(await follows()).toBe(0);
    // Followed again; a repeat of the Undo undoes nothing.
    expect((await post(await remote.signedPost(ALICE_INBOX, followOf(), mallory()))).status).toBe(202);
    expect(await follows()).toBe(1);
    const again = await answered(await remote.signedPost(ALICE_INBOX, undo, mallory()));
    expect(again.accepted).toBe(1);
    expect(again.response.status).toBe(202);
    expect(await again.response.text()).toBe(`Activity <${String(undo.id)}> has already been processed.`);
    expect(await follows()).toBe(1);
  });

  it("answers with Vary: Accept when the POST accepts JSON, as Fedify does, and leaves other Accept headers to Fedify", async () => {
    const headers = { accept: "application/activity+json" };
    const viaFedify = await answered(await remote.signedPost(ALICE_INBOX, followOf(), mallory(), { headers }));
    expect(viaFedify.passed).toBe(1);
    await settle();
    const viaFront = await answered(await remote.signedPost(ALICE_INBOX, followOf(), mallory(), { headers }));
    expect(viaFront.accepted).toBe(1);
    for (const { response } of [viaFedify, viaFront]) {
      expect(response.status).toBe(202);
      expect(response.headers.get("vary")).toBe("Accept");
    }
    const other = await answered(await remote.signedPost(ALICE_INBOX, followOf(), mallory(), { headers: { accept: "text/html, */*" } }));
    expect(other.response.status).toBe(202);
    expect(other.passed).toBe(1);
  });

  it("leaves an activity with an integrity proof to Fedify", async () => {
    await warm();
    const proved = await remote.withProof(followOf(), mallory());
    const { response, accepted } = await answered(await remote.signedPost(ALICE_INBOX, proved, mallory()));
    expect(response.status).toBe(202);
    expect(accepted).toBe(0);
  });
});
