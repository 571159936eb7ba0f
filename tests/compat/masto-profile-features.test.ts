/**
 * masto.js as a real client, over real HTTP: endorsing a followed account,
 * featuring hashtags, the profile directory and collections, each read back
 * through the calls a client makes.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { type NodeServer, startNodeServer } from "@kith/http-adapter-node";
import type { TestKith } from "@kith/core/testing";
import { createRestAPIClient } from "masto";
import { describeOnEngines } from "../support/engines.js";

describeOnEngines("masto.js profile features", (engine) => {
  let kith: TestKith;
  let server: NodeServer;

  beforeAll(async () => {
    kith = await engine.testKith();
    server = await startNodeServer({ handler: (request, info) => kith.fetch(request, info) });
  });
  afterAll(async () => {
    await server?.close();
    await kith?.close();
  });

  it("endorses a followed account and lists it", async () => {
    const [me, friend] = [await kith.createUser("masto_endorser"), await kith.createUser("masto_endorsed")];
    const client = createRestAPIClient({ url: server.url, accessToken: me.token });
    await client.v1.accounts.$select(friend.account.id).follow();
    const relationship = await client.v1.accounts.$select(friend.account.id).endorse();
    expect(relationship).toMatchObject({ id: friend.account.id, endorsed: true });
    expect((await client.v1.endorsements.list()).map((account) => account.id)).toEqual([friend.account.id]);
    expect((await client.v1.accounts.$select(me.account.id).endorsements.list()).map((account) => account.id)).toEqual([friend.account.id]);
    expect((await client.v1.accounts.$select(friend.account.id).unendorse()).endorsed).toBe(false);
  });

  it("features hashtags, suggests others and unfeatures", async () => {
    const me = await kith.createUser("masto_tagger");
    const client = createRestAPIClient({ url: server.url, accessToken: me.token });
    await client.v1.statuses.create({ status: "about #Knitting and #wool" });
    const featured = await client.v1.featuredTags.create({ name: "Knitting" });
    expect(featured).toMatchObject({ name: "Knitting", statusesCount: 1 });
    expect((await client.v1.featuredTags.list()).map((tag) => tag.id)).toEqual([featured.id]);
    expect((await client.v1.featuredTags.suggestions.list()).map((tag) => tag.name)).toEqual(["wool"]);
    expect((await client.v1.accounts.$select(me.account.id).featuredTags.list()).map((tag) => tag.name)).toEqual(["Knitting"]);
    await client.v1.featuredTags.$select(featured.id).remove();
    expect(await client.v1.featuredTags.list()).toEqual([]);
  });

  it("lists the directory", async () => {
    const me = await kith.createUser("masto_listed");
    const client = createRestAPIClient({ url: server.url, accessToken: me.token });
    await client.v1.accounts.updateCredentials({ discoverable: true });
    const listed = await client.v1.directory.list({ local: true, order: "new", limit: 10 });
    expect(listed.map((account) => account.id)).toContain(me.account.id);
  });

  it("creates, edits and fills a collection", async () => {
    const [me, friend] = [await kith.createUser("masto_curator"), await kith.createUser("masto_curated")];
    const client = createRestAPIClient({ url: server.url, accessToken: me.token });
    const { collection } = await client.v1.collections.create({ name: "Crafts", tagName: "crafts" });
    expect(collection).toMatchObject({ name: "Crafts", itemCount: 0, tag: { name: "crafts" } });
    const { collectionItem } = await client.v1.collections.$select(collection.id).items.create({ accountId: friend.account.id });
    expect(collectionItem).toMatchObject({ accountId: friend.account.id, state: "accepted" });
    const updated = await client.v1.collections.$select(collection.id).update({ name: "Crafters" });
    expect(updated.collection).toMatchObject({ name: "Crafters", itemCount: 1 });
    const fetched = await client.v1.collections.$select(collection.id).fetch();
    expect(fetched.accounts.map((account) => account.id)).toEqual([me.account.id, friend.account.id]);
    const listed = await client.v1.accounts.$select(me.account.id).collections.list();
    expect(listed.collections.map((entry) => entry.id)).toEqual([collection.id]);
    await client.v1.collections.$select(collection.id).items.$select(collectionItem.id).remove();
    await client.v1.collections.$select(collection.id).remove();
    expect((await client.v1.accounts.$select(me.account.id).collections.list()).collections).toEqual([]);
  });
});
