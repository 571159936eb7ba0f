/**
 * What an account features on its profile, as other servers fetch it: the
 * actor's `featuredTags` collection lists its featured hashtags, and its
 * endorsements collection the actors it endorses.
 */
import type { TestKith } from "@kith/core/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";
import { call } from "../support/groups.js";

const AP = "application/activity+json";
type Json = Record<string, unknown>;

describeOnEngines("profile collections over ActivityPub", (engine) => {
  let kith: TestKith;
  beforeEach(async () => {
    kith = await engine.testKith();
  });
  afterEach(async () => {
    await kith.close();
  });

  async function get(path: string): Promise<{ status: number; body: Json }> {
    const response = await kith.request("GET", path, { headers: { accept: AP } });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Json) : {} };
  }
  const itemsOf = (body: Json): unknown[] => {
    const items = body.orderedItems ?? body.items ?? [];
    return Array.isArray(items) ? items : [items];
  };

  it("serves the featured hashtags as Hashtag objects in the actor's featuredTags collection", async () => {
    const alice = await kith.createUser("alice");
    expect((await call(kith, "POST", "/api/v1/statuses", alice.token, { status: "about #Cats" })).status).toBe(200);
    expect((await call(kith, "POST", "/api/v1/featured_tags", alice.token, { name: "Cats" })).status).toBe(200);
    expect((await call(kith, "POST", "/api/v1/featured_tags", alice.token, { name: "gardening" })).status).toBe(200);

    const actor = await get("/users/alice");
    expect(actor.body.featuredTags).toBe("https://kith.test/users/alice/collections/tags");
    const featured = await get("/users/alice/collections/tags");
    expect(featured.status).toBe(200);
    expect(featured.body.totalItems).toBe(2);
    expect(itemsOf(featured.body)).toMatchObject([
      { type: "Hashtag", name: "#Cats", href: "https://kith.test/tags/cats" },
      { type: "Hashtag", name: "#gardening", href: "https://kith.test/tags/gardening" },
    ]);

    // Unfeatured, it is gone from the collection.
    await call(kith, "POST", "/api/v1/tags/cats/unfeature", alice.token);
    expect(itemsOf((await get("/users/alice/collections/tags")).body)).toHaveLength(1);
    expect((await get("/users/nobody/collections/tags")).status).toBe(404);
  });

  it("serves the endorsed accounts' actor ids in the endorsements collection, and nothing once the owner hides whom they follow", async () => {
    const [alice, bob] = [await kith.createUser("alice"), await kith.createUser("bob")];
    expect((await call(kith, "POST", `/api/v1/accounts/${bob.account.id}/follow`, alice.token)).status).toBe(200);
    expect((await call(kith, "POST", `/api/v1/accounts/${bob.account.id}/endorse`, alice.token)).status).toBe(200);

    const endorsements = await get("/users/alice/collections/endorsements");
    expect(endorsements.status).toBe(200);
    expect(endorsements.body.totalItems).toBe(1);
    expect(itemsOf(endorsements.body)).toEqual(["https://kith.test/users/bob"]);
    expect((await get("/users/nobody/collections/endorsements")).status).toBe(404);

    expect((await call(kith, "PATCH", "/api/v1/accounts/update_credentials", alice.token, { hide_collections: true })).status).toBe(200);
    expect(itemsOf((await get("/users/alice/collections/endorsements")).body)).toEqual([]);
  });
});
