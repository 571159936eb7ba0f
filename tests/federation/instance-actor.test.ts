/**
 * The instance actor between two instances whose origins have a port, over
 * real HTTP: every collection its document names answers (as Mastodon's, it
 * names an inbox and an empty outbox, no followers, following or featured),
 * and its handle, its preferredUsername (the host name, without the port: a
 * username has no colon) at the host, resolves over WebFinger to it, so
 * another server finds it by handle and keeps it.
 */
import type { TestUser } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { AP_ACCEPT, jsonOf } from "../support/activitypub-answers.js";
import { describeOnEngines } from "../support/engines.js";
import { type KithPair, type PairedKith, startKithPair } from "../support/federation-pair.js";

type Json = Record<string, unknown>;

describeOnEngines("the instance actor", (engine) => {
  let pair: KithPair;
  let a: PairedKith;
  let b: PairedKith;
  let bob: TestUser;
  beforeAll(async () => {
    pair = await startKithPair(engine);
    ({ a, b } = pair);
    bob = await b.kith.createUser("bob");
  }, 60_000);
  afterAll(async () => {
    await pair?.close();
  });

  const instanceActor = () => `${a.origin}/users/instance.actor`;

  it("serves every collection its document names", async () => {
    const actor = await jsonOf(await fetch(instanceActor(), { headers: { accept: AP_ACCEPT } }));
    expect(actor.status).toBe(200);
    expect(actor.body).toMatchObject({ type: "Application", preferredUsername: "127.0.0.1", outbox: `${instanceActor()}/outbox` });
    const named = ["inbox", "outbox", "followers", "following", "featured", "featuredTags"].filter((name) => name in actor.body);
    expect(named).toEqual(["inbox", "outbox"]);
    const outbox = await jsonOf(await fetch(String(actor.body.outbox), { headers: { accept: AP_ACCEPT } }));
    expect(outbox).toMatchObject({ status: 200, body: { type: "OrderedCollection", totalItems: 0 } });
    const first = await jsonOf(await fetch(String(outbox.body.first), { headers: { accept: AP_ACCEPT } }));
    expect(first.status).toBe(200);
    expect(first.body.orderedItems ?? []).toEqual([]);
  });

  it("resolves its handle, preferredUsername@host, to itself over WebFinger", async () => {
    const resource = `acct:127.0.0.1@${a.host}`;
    const finger = await jsonOf(await fetch(`${a.origin}/.well-known/webfinger?resource=${encodeURIComponent(resource)}`));
    expect(finger.status).toBe(200);
    expect(finger.body.subject).toBe(resource);
    expect(finger.body.links).toContainEqual(expect.objectContaining({ rel: "self", href: instanceActor() }));
  });

  it("is found and kept by another server, by handle and by URL", async () => {
    for (const q of [`@127.0.0.1@${a.host}`, instanceActor()]) {
      const response = await b.kith.request("GET", `/api/v2/search?type=accounts&resolve=true&q=${encodeURIComponent(q)}`, {
        token: bob.token,
      });
      expect(response.status).toBe(200);
      const accounts = ((await response.json()) as { accounts: Json[] }).accounts;
      expect(accounts).toEqual([expect.objectContaining({ acct: `127.0.0.1@${a.host}`, url: expect.any(String) })]);
    }
  });

  it("answers the handle it had before, with the port, and no other port", async () => {
    const finger = async (resource: string) =>
      (await fetch(`${a.origin}/.well-known/webfinger?resource=${encodeURIComponent(resource)}`)).status;
    expect(await finger(`acct:${a.host}@${a.host}`)).toBe(200);
    expect(await finger(`acct:127.0.0.1:1@${a.host}`)).toBe(404);
  });
});
