import { createHash } from "node:crypto";
import { type RemoteServer, type TestKith, startRemoteServer } from "@kith/core/testing";
import { type NodeServer, startNodeServer } from "@kith/http-adapter-node";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it, vi } from "vitest";
import { federationSettled } from "../support/remote-activities.js";
import { describeOnEngines } from "../support/engines.js";

/**
 * Costly activities sent over HTTP to a server on loopback by a hostile
 * peer (a loopback server that serves its actors and keys and signs as
 * them): each is refused before anything reads it as an activity, which
 * shows as the body never parsed (an unsigned one) or as the signer's key
 * never fetched (a signed one: Fedify fetches it to verify, after reading
 * the activity), and as nothing stored.
 */
describeOnEngines("costly activities from a hostile peer", (engine) => {
  let peer: RemoteServer;
  let server: NodeServer;
  let kith: TestKith | undefined;

  beforeAll(async () => {
    peer = await startRemoteServer(["mallory"]);
    server = await startNodeServer({ handler: (request, info) => (kith ?? expect.unreachable("kith")).fetch(request, info) });
  });
  afterAll(async () => {
    await server.close();
    await peer.close();
  });
  beforeEach(async () => {
    kith = await engine.testKith({ config: { origin: server.url, allowPrivateAddress: true } });
    await kith.createUser("alice");
    await kith.start();
    peer.fetched.length = 0;
  });
  afterEach(async () => {
    await kith?.close();
    vi.restoreAllMocks();
  });

  const mallory = () => peer.actors.mallory ?? expect.unreachable("mallory");
  const inbox = () => `${server.url}/users/alice/inbox`;

  /** A public Create of mallory's, of an object of `type` at `path`, with `fields` besides. */
  function createOf(path: string, type: string, fields: Record<string, unknown>): Record<string, unknown> {
    const id = `${mallory().id.href}/statuses/${path}`;
    const to = ["https://www.w3.org/ns/activitystreams#Public"];
    return {
      "@context": "https://www.w3.org/ns/activitystreams",
      id: `${id}/activity`,
      type: "Create",
      actor: mallory().id.href,
      to,
      object: { id, type, attributedTo: mallory().id.href, to, ...fields },
    };
  }

  /** A Question with `count` options, as a Create of mallory's (some 760 KB for 10 000). */
  function questionWith(count: number): Record<string, unknown> {
    return createOf(String(count), "Question", {
      content: "<p>Which?</p>",
      oneOf: Array.from({ length: count }, (_, i) => ({ type: "Note", name: `option ${i}`, replies: { type: "Collection", totalItems: 0 } })),
    });
  }

  /** A Note with `count` hashtags. */
  function noteWith(count: number): Record<string, unknown> {
    return createOf(`tags-${count}`, "Note", {
      content: "<p>tags</p>",
      tag: Array.from({ length: count }, (_, i) => ({ type: "Hashtag", name: `#tag${i}`, href: `${peer.origin}/tags/tag${i}` })),
    });
  }

  /** Sends `request` over HTTP, as the peer would. */
  async function send(request: Request): Promise<Response> {
    const body = await request.arrayBuffer();
    return fetch(request.url, { method: "POST", headers: request.headers, body });
  }

  async function statuses(): Promise<number> {
    await federationSettled(kith ?? expect.unreachable("kith"));
    const db = (kith ?? expect.unreachable("kith")).storage.db;
    const row = await db
      .selectFrom("statuses")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  it("takes a signed poll of a few options over HTTP (the case the refusals are measured against)", async () => {
    const response = await send(await peer.signedPost(inbox(), questionWith(3), mallory()));
    expect(response.status).toBe(202);
    expect(await statuses()).toBe(1);
  });

  it("refuses an unsigned Create(Question) of 10 000 options without parsing its body", async () => {
    const body = JSON.stringify(questionWith(10_000));
    expect(body.length).toBeGreaterThan(700_000);
    const parse = vi.spyOn(JSON, "parse");
    const response = await fetch(inbox(), { method: "POST", headers: { "content-type": "application/activity+json" }, body });
    expect(response.status).toBe(401);
    expect(parse.mock.calls.some(([text]) => typeof text === "string" && text.length >= body.length)).toBe(false);
    expect(peer.fetched).toEqual([]);
    expect(await statuses()).toBe(0);
  });

  it("refuses a forged signature with a Digest that does not match the body without parsing it", async () => {
    const body = JSON.stringify(questionWith(10_000));
    const headers = {
      "content-type": "application/activity+json",
      date: new Date().toUTCString(),
      digest: `SHA-256=${createHash("sha256").update("another body").digest("base64")}`,
      signature: `keyId="${mallory().rsaKeyId.href}",algorithm="rsa-sha256",headers="(request-target) host date digest",signature="${btoa("forged")}"`,
    };
    const parse = vi.spyOn(JSON, "parse");
    const response = await fetch(inbox(), { method: "POST", headers, body });
    expect(response.status).toBe(401);
    expect(parse.mock.calls.some(([text]) => typeof text === "string" && text.length >= body.length)).toBe(false);
    expect(peer.fetched).toEqual([]);
  });

  it("refuses a signed Create(Question) of 10 000 options before reading it: the signer's key is never fetched, no poll stored", async () => {
    const response = await send(await peer.signedPost(inbox(), questionWith(10_000), mallory()));
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ code: "federation.activity_too_complex" });
    expect(peer.fetched).toEqual([]);
    expect(await statuses()).toBe(0);
  });

  it("refuses a signed Note of 12 000 tags before reading it", async () => {
    const response = await send(await peer.signedPost(inbox(), noteWith(12_000), mallory()));
    expect(response.status).toBe(422);
    expect(peer.fetched).toEqual([]);
    expect(await statuses()).toBe(0);
  });

  it("refuses an activity nested deeper than the bound before reading it", async () => {
    let nested: unknown = "bottom";
    for (let i = 0; i < 100; i++) nested = { type: "Note", content: "x", inReplyTo: nested };
    const activity = { ...noteWith(1), object: nested };
    const response = await send(await peer.signedPost(inbox(), activity, mallory()));
    expect(response.status).toBe(422);
    expect(peer.fetched).toEqual([]);
  });
});
