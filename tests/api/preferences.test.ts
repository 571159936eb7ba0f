/** What clients load on start: preferences, custom emojis, suggestions, announcements, instance peers and activity. */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { TestKith, TestUser } from "@kith/core/testing";
import { describeOnEngines } from "../support/engines.js";

describeOnEngines("client start-up endpoints", (engine) => {
  let kith: TestKith;
  let alice: TestUser;

  beforeAll(async () => {
    kith = await engine.testKith();
    alice = await kith.createUser("prefalice");
  });
  afterAll(() => kith.close());

  it("reads the preferences from the user's settings", async () => {
    const defaults = await kith.request("GET", "/api/v1/preferences", { token: alice.token });
    expect(defaults.status).toBe(200);
    expect(await defaults.json()).toEqual({
      "posting:default:visibility": "public",
      "posting:default:sensitive": false,
      "posting:default:language": null,
      "posting:default:quote_policy": "public",
      "reading:expand:media": "default",
      "reading:expand:spoilers": false,
      "reading:autoplay:gifs": false,
    });
    await kith.storage.db
      .updateTable("users")
      .set({
        default_visibility: "private",
        // Generated boolean columns are typed as their wrapper; the value written is a plain boolean.
        default_sensitive: true as never,
        default_language: "de",
        expand_media: "show_all",
        expand_spoilers: true as never,
      })
      .where("account_id", "=", alice.account.id)
      .execute();
    expect(await (await kith.request("GET", "/api/v1/preferences", { token: alice.token })).json()).toMatchObject({
      "posting:default:visibility": "private",
      "posting:default:sensitive": true,
      "posting:default:language": "de",
      "reading:expand:media": "show_all",
      "reading:expand:spoilers": true,
    });
    expect((await kith.request("GET", "/api/v1/preferences")).status).toBe(401);
  });

  it("lists custom emojis: none at first, then the enabled local ones with an image", async () => {
    expect(await (await kith.request("GET", "/api/v1/custom_emojis")).json()).toEqual([]);
    const now = kith.clock.now().toISOString();
    const emoji = (shortcode: string, extra: Record<string, unknown>) => ({
      id: kith.ids.next("emoji"),
      shortcode,
      created_at: now,
      updated_at: now,
      ...extra,
    });
    for (const row of [
      emoji("blobcat", { image_remote_url: "https://cdn.example/blobcat.png", category: "cats" }),
      emoji("off", { image_remote_url: "https://cdn.example/off.png", disabled: true }),
      emoji("remote", { image_remote_url: "https://other.example/r.png", domain: "other.example" }),
      emoji("noimage", {}),
    ]) {
      await kith.storage.db.insertInto("custom_emojis").values(row).execute();
    }
    expect(await (await kith.request("GET", "/api/v1/custom_emojis")).json()).toEqual([
      {
        shortcode: "blobcat",
        url: "https://cdn.example/blobcat.png",
        static_url: "https://cdn.example/blobcat.png",
        visible_in_picker: true,
        category: "cats",
      },
    ]);
  });

  it("suggests friends of friends first, then recently active accounts, never errors", async () => {
    const viewer = await kith.createUser("prefviewer");
    expect((await kith.request("GET", "/api/v2/suggestions", { token: viewer.token })).status).toBe(200);
    const friend = await kith.createUser("preffriend");
    const fof = await kith.createUser("preffof");
    const active = await kith.createUser("prefactive");
    const hidden = await kith.createUser("prefhidden");
    await kith.storage.db.updateTable("accounts").set({ discoverable: true }).execute();
    await kith.storage.db
      .updateTable("accounts")
      .set({ last_status_at: kith.clock.now().toISOString() })
      .where("id", "in", [active.account.id, hidden.account.id])
      .execute();
    const now = kith.clock.now().toISOString();
    const follow = (from: TestUser, to: TestUser) => ({
      id: kith.ids.next("follow"),
      account_id: from.account.id,
      target_account_id: to.account.id,
      follower_local: true,
      created_at: now,
      updated_at: now,
    });
    await kith.storage.db
      .insertInto("follows")
      .values([follow(viewer, friend), follow(friend, fof)])
      .execute();
    await kith.storage.db
      .insertInto("blocks")
      .values({ id: kith.ids.next("block"), account_id: viewer.account.id, target_account_id: hidden.account.id, created_at: now })
      .execute();
    const v2 = (await (await kith.request("GET", "/api/v2/suggestions", { token: viewer.token })).json()) as {
      source: string;
      sources: string[];
      account: { id: string };
    }[];
    expect(v2.map((s) => s.account.id)).toEqual([fof.account.id, active.account.id]);
    expect(v2[0]).toMatchObject({ source: "past_interactions", sources: ["friends_of_friends"] });
    expect(v2[1]).toMatchObject({ source: "global" });
    const v1 = (await (await kith.request("GET", "/api/v1/suggestions?limit=1", { token: viewer.token })).json()) as { id: string }[];
    expect(v1.map((a) => a.id)).toEqual([fof.account.id]);
    expect((await kith.request("GET", "/api/v1/suggestions")).status).toBe(401);
  });

  it("answers announcements with an empty list", async () => {
    const response = await kith.request("GET", "/api/v1/announcements", { token: alice.token });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([]);
    expect((await kith.request("GET", "/api/v1/announcements")).status).toBe(401);
  });

  it("reports peers and twelve weeks of activity", async () => {
    const now = kith.clock.now().toISOString();
    await kith.storage.db
      .insertInto("accounts")
      .values({
        id: kith.ids.next("user"),
        username: "far",
        domain: "far.example",
        acct_key: "far@far.example",
        display_name: "",
        note: "",
        actor_type: "Person",
        locked: false,
        discoverable: false,
        uri: "https://far.example/u/far",
        url: null,
        created_at: now,
        updated_at: now,
        suspended_at: null,
        silenced_at: null,
        sensitized_at: null,
      })
      .execute();
    expect(await (await kith.request("GET", "/api/v1/instance/peers")).json()).toEqual(["far.example"]);
    await kith.request("POST", "/api/v1/statuses", { token: alice.token, json: { status: "counted" } });
    const weeks = (await (await kith.request("GET", "/api/v1/instance/activity")).json()) as Record<string, string>[];
    expect(weeks).toHaveLength(12);
    expect(Number(weeks[0]?.statuses)).toBeGreaterThanOrEqual(1);
    expect(Number(weeks[0]?.registrations)).toBeGreaterThanOrEqual(1);
    expect(Number(weeks[0]?.logins)).toBeGreaterThanOrEqual(0);
    expect(Number(weeks[0]?.week) - Number(weeks[1]?.week)).toBe(7 * 86_400);
    expect(new Date(Number(weeks[0]?.week) * 1000).getUTCDay()).toBe(1);
  });
});
