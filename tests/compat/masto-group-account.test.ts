/**
 * masto.js meeting a group as Mastodon clients do, as an account (`group:
 * true`), over real HTTP on both engines: finding it by search and lookup,
 * following it (joining), reading its statuses, posting into it, and
 * leaving by unfollowing.
 *
 * Posting: masto.js sends a status's parameters as the JSON body it is
 * given, unknown keys included, so `group_id` (`groupId`, which masto.js
 * writes in snake case) reaches the server; a client that cannot send it
 * mentions the group, which reaches its account but does not place the
 * status in the group.
 */
import type { TestUser } from "@kith/core/testing";
import type { mastodon } from "masto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type CompatServer, startCompatServer } from "../support/compat-server.js";
import { describeOnEngines } from "../support/engines.js";

describeOnEngines("masto.js groups as accounts", (engine) => {
  let compat: CompatServer;
  let owner: TestUser;
  let reader: TestUser;

  beforeAll(async () => {
    compat = await startCompatServer(engine);
    owner = await compat.kith.createUser("mastogaowner");
    reader = await compat.kith.createUser("mastogareader");
  });
  afterAll(() => compat?.close());

  it("finds a group, follows it, reads and posts its statuses, and leaves it", async () => {
    const made = await fetch(new URL("/api/v1/groups", compat.url), {
      method: "POST",
      headers: { authorization: `Bearer ${owner.token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "mastogarden", display_name: "Garden club", join_mode: "OPEN" }),
    });
    expect(made.status).toBe(200);
    const group = (await made.json()) as { id: string };
    const first = await compat
      .client(owner)
      .v1.statuses.create({ status: "first in the garden", groupId: group.id } as mastodon.rest.v1.CreateStatusParams);

    const client = compat.client(reader);
    const found = await client.v1.accounts.search.list({ q: "mastogard" });
    expect(found.map((account) => account.id)).toContain(group.id);
    const looked = await client.v1.accounts.lookup({ acct: "mastogarden" });
    expect(looked).toMatchObject({ id: group.id, group: true, bot: false, displayName: "Garden club", followersCount: 1 });
    const searched = await client.v2.search.list({ q: "mastogarden", type: "accounts" });
    expect(searched.accounts[0]?.id).toBe(group.id);

    const relationship = await client.v1.accounts.$select(group.id).follow();
    expect(relationship).toMatchObject({ id: group.id, following: true, requested: false });
    const [again] = await client.v1.accounts.relationships.fetch({ id: [group.id] });
    expect(again?.following).toBe(true);

    const posted = await client.v1.statuses.create({ status: "hello gardeners", groupId: group.id } as mastodon.rest.v1.CreateStatusParams);
    const mentioning = await client.v1.statuses.create({ status: "@mastogarden are you there?" });
    expect(mentioning.mentions.map((mention) => mention.id)).toEqual([group.id]);

    const statuses = await client.v1.accounts.$select(group.id).statuses.list();
    expect(statuses.map((status) => status.id)).toEqual([posted.id, first.id]);
    expect((await client.v1.accounts.$select(group.id).fetch()).statusesCount).toBe(2);

    const left = await client.v1.accounts.$select(group.id).unfollow();
    expect(left.following).toBe(false);
    await expect(compat.client(owner).v1.accounts.$select(group.id).unfollow()).rejects.toMatchObject({ statusCode: 409 });
  });
});
