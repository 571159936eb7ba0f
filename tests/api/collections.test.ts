/**
 * Collections: curated lists of accounts a user recommends. The owner
 * creates, edits and deletes them and adds and removes accounts; others see
 * the discoverable ones on the profile and any one by id; an account added
 * can take itself out.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestKith } from "@kith/core/testing";
import { describeOnEngines } from "../support/engines.js";
import { call } from "../support/groups.js";

describeOnEngines("collections", (engine) => {
  let kith: TestKith;
  let serial = 0;
  const fresh = () => kith.createUser(`co${++serial}`);

  beforeAll(async () => {
    kith = await engine.testKith();
  });
  afterAll(() => kith.close());

  it("creates a collection with accounts and a hashtag, and shows it with their accounts", async () => {
    const [owner, one, two] = [await fresh(), await fresh(), await fresh()];
    const made = await call(kith, "POST", "/api/v1/collections", owner.token, {
      name: "Good people",
      description: "Follow them",
      language: "en",
      tag_name: "Friends",
      account_ids: [one.account.id, two.account.id],
    });
    expect(made.status).toBe(200);
    const collection = made.body.collection;
    expect(collection).toMatchObject({
      id: expect.stringMatching(/^cl_/),
      account_id: owner.account.id,
      name: "Good people",
      description: "Follow them",
      language: "en",
      local: true,
      sensitive: false,
      discoverable: true,
      tag: { name: "Friends", url: "https://kith.test/tags/friends" },
      item_count: 2,
    });
    expect(collection.items.map((item: { account_id: string }) => item.account_id)).toEqual([one.account.id, two.account.id]);
    expect(collection.items[0]).toMatchObject({ id: expect.stringMatching(/^ci_/), state: "accepted" });

    const shown = await call(kith, "GET", `/api/v1/collections/${collection.id}`);
    expect(shown.status).toBe(200);
    expect(shown.body.collection.id).toBe(collection.id);
    expect(shown.body.accounts.map((account: { id: string }) => account.id)).toEqual([owner.account.id, one.account.id, two.account.id]);
  });

  it("edits, adds and removes accounts, and deletes", async () => {
    const [owner, one] = [await fresh(), await fresh()];
    const { id } = (await call(kith, "POST", "/api/v1/collections", owner.token, { name: "Mine" })).body.collection;
    const edited = await call(kith, "PATCH", `/api/v1/collections/${id}`, owner.token, {
      name: "Renamed",
      sensitive: true,
      tag_name: null,
    });
    expect(edited.status).toBe(200);
    expect(edited.body.collection).toMatchObject({ name: "Renamed", sensitive: true, tag: null });

    const added = await call(kith, "POST", `/api/v1/collections/${id}/items`, owner.token, { account_id: one.account.id });
    expect(added.status).toBe(200);
    expect(added.body.collection_item).toMatchObject({ account_id: one.account.id, state: "accepted" });
    const again = await call(kith, "POST", `/api/v1/collections/${id}/items`, owner.token, { account_id: one.account.id });
    expect(again.status).toBe(422);
    expect(again.body.code).toBe("collection.already_added");

    const itemId = added.body.collection_item.id;
    expect((await call(kith, "DELETE", `/api/v1/collections/${id}/items/${itemId}`, owner.token)).status).toBe(200);
    expect((await call(kith, "DELETE", `/api/v1/collections/${id}/items/${itemId}`, owner.token)).status).toBe(404);
    expect((await call(kith, "GET", `/api/v1/collections/${id}`)).body.collection.item_count).toBe(0);

    expect((await call(kith, "DELETE", `/api/v1/collections/${id}`, owner.token)).status).toBe(200);
    expect((await call(kith, "GET", `/api/v1/collections/${id}`)).status).toBe(404);
  });

  it("refuses bad input: a long name, a bad language, the owner or an unknown account as an item", async () => {
    const owner = await fresh();
    const long = await call(kith, "POST", "/api/v1/collections", owner.token, { name: "x".repeat(41) });
    expect(long.status).toBe(422);
    expect(long.body).toMatchObject({ code: expect.any(String), error: expect.any(String) });
    expect((await call(kith, "POST", "/api/v1/collections", owner.token, { name: "ok", language: "english" })).status).toBe(422);
    expect((await call(kith, "POST", "/api/v1/collections", owner.token, { name: "ok", description: "d".repeat(101) })).status).toBe(422);
    const self = await call(kith, "POST", "/api/v1/collections", owner.token, { name: "ok", account_ids: [owner.account.id] });
    expect(self.status).toBe(422);
    expect(self.body.code).toBe("collection.account_refused");
    const unknown = await call(kith, "POST", "/api/v1/collections", owner.token, { name: "ok", account_ids: ["us_nobody"] });
    expect(unknown.status).toBe(422);
    expect((await call(kith, "GET", "/api/v1/accounts/us_nobody/collections")).status).toBe(404);
    expect((await call(kith, "GET", "/api/v1/collections/cl_nothing")).status).toBe(404);
  });

  it("refuses a twenty-sixth account", async () => {
    const owner = await fresh();
    const members = [];
    for (let i = 0; i < 26; i++) members.push(await fresh());
    const full = await call(kith, "POST", "/api/v1/collections", owner.token, {
      name: "Big",
      account_ids: members.slice(0, 25).map((member) => member.account.id),
    });
    expect(full.status).toBe(200);
    const refused = await call(kith, "POST", `/api/v1/collections/${full.body.collection.id}/items`, owner.token, {
      account_id: members[25]?.account.id,
    });
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe("collection.full");
  });

  it("another user may not change a collection (403), and sees only the discoverable ones on the profile", async () => {
    const [owner, other] = [await fresh(), await fresh()];
    const open = (await call(kith, "POST", "/api/v1/collections", owner.token, { name: "Open" })).body.collection;
    const quiet = (await call(kith, "POST", "/api/v1/collections", owner.token, { name: "Quiet", discoverable: false })).body.collection;
    expect((await call(kith, "PATCH", `/api/v1/collections/${open.id}`, other.token, { name: "Mine now" })).status).toBe(403);
    expect((await call(kith, "DELETE", `/api/v1/collections/${open.id}`, other.token)).status).toBe(403);
    expect((await call(kith, "POST", `/api/v1/collections/${open.id}/items`, other.token, { account_id: other.account.id })).status).toBe(
      403,
    );

    const seen = await call(kith, "GET", `/api/v1/accounts/${owner.account.id}/collections`, other.token);
    expect(seen.body.collections.map((collection: { id: string }) => collection.id)).toEqual([open.id]);
    const own = await call(kith, "GET", `/api/v1/accounts/${owner.account.id}/collections`, owner.token);
    expect(own.body.collections.map((collection: { id: string }) => collection.id)).toEqual([quiet.id, open.id]);
    // An undiscoverable collection is still found by its id.
    expect((await call(kith, "GET", `/api/v1/collections/${quiet.id}`)).status).toBe(200);
  });

  it("an account added lists the collections it is in and takes itself out", async () => {
    const [owner, member, other] = [await fresh(), await fresh(), await fresh()];
    const made = (await call(kith, "POST", "/api/v1/collections", owner.token, { name: "With me", account_ids: [member.account.id] })).body
      .collection;
    const itemId = made.items[0].id;
    const inList = await call(kith, "GET", `/api/v1/accounts/${member.account.id}/in_collections`, member.token);
    expect(inList.body.collections.map((collection: { id: string }) => collection.id)).toEqual([made.id]);
    // Others see the same: the collection is discoverable.
    const seenByOther = await call(kith, "GET", `/api/v1/accounts/${member.account.id}/in_collections`, other.token);
    expect(seenByOther.body.collections.map((collection: { id: string }) => collection.id)).toEqual([made.id]);
    expect((await call(kith, "GET", "/api/v1/accounts/us_nobody/in_collections", other.token)).status).toBe(404);
    expect((await call(kith, "POST", `/api/v1/collections/${made.id}/items/${itemId}/revoke`, other.token)).status).toBe(404);
    expect((await call(kith, "POST", `/api/v1/collections/${made.id}/items/${itemId}/revoke`, member.token)).status).toBe(200);
    expect((await call(kith, "GET", `/api/v1/collections/${made.id}`)).body.collection.item_count).toBe(0);
  });

  it("a blocked viewer does not see the owner's collections", async () => {
    const [owner, viewer] = [await fresh(), await fresh()];
    const made = (await call(kith, "POST", "/api/v1/collections", owner.token, { name: "Not for you" })).body.collection;
    await call(kith, "POST", `/api/v1/accounts/${viewer.account.id}/block`, owner.token);
    expect((await call(kith, "GET", `/api/v1/collections/${made.id}`, viewer.token)).status).toBe(404);
    expect((await call(kith, "GET", `/api/v1/accounts/${owner.account.id}/collections`, viewer.token)).body.collections).toEqual([]);
  });

  describe("without a token", () => {
    it("answers 401 to the owner's routes", async () => {
      expect((await call(kith, "POST", "/api/v1/collections", undefined, { name: "x" })).status).toBe(401);
      expect((await call(kith, "PATCH", "/api/v1/collections/cl_x", undefined, { name: "x" })).status).toBe(401);
      expect((await call(kith, "DELETE", "/api/v1/collections/cl_x")).status).toBe(401);
      expect((await call(kith, "POST", "/api/v1/collections/cl_x/items", undefined, { account_id: "us_x" })).status).toBe(401);
      expect((await call(kith, "GET", "/api/v1/accounts/us_x/in_collections")).status).toBe(401);
    });
  });
});
