/**
 * Every key of Mastodon's entities, as Mastodon documents them (checked
 * against masto.js 8's types), is in what Kith answers: clients crash on a
 * missing key, so an entity carries each one, null or empty where Kith has
 * nothing. The lists are Mastodon's, written out here, so that a key Kith's
 * own schemas forgot is caught too.
 */
import type { TestKith, TestUser } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";

const ACCOUNT = [
  "id",
  "username",
  "acct",
  "url",
  "uri",
  "display_name",
  "note",
  "avatar",
  "avatar_static",
  "header",
  "header_static",
  "locked",
  "fields",
  "emojis",
  "bot",
  "group",
  "discoverable",
  "indexable",
  "noindex",
  "hide_collections",
  "moved",
  "suspended",
  "limited",
  "memorial",
  "created_at",
  "last_status_at",
  "statuses_count",
  "followers_count",
  "following_count",
  "roles",
  "feature_approval",
];
const CREDENTIAL_SOURCE = [
  "privacy",
  "sensitive",
  "language",
  "note",
  "fields",
  "follow_requests_count",
  "hide_collections",
  "discoverable",
  "indexable",
  "attribution_domains",
  "quote_policy",
];
const STATUS = [
  "id",
  "uri",
  "url",
  "created_at",
  "edited_at",
  "account",
  "content",
  "visibility",
  "sensitive",
  "spoiler_text",
  "media_attachments",
  "application",
  "mentions",
  "tags",
  "emojis",
  "reblogs_count",
  "favourites_count",
  "replies_count",
  "quotes_count",
  "in_reply_to_id",
  "in_reply_to_account_id",
  "reblog",
  "poll",
  "card",
  "language",
  "text",
  "quote",
  "quote_approval",
  // Present when a user is signed in.
  "favourited",
  "reblogged",
  "muted",
  "bookmarked",
  "pinned",
];
const POLL = ["id", "expires_at", "expired", "multiple", "votes_count", "voters_count", "options", "emojis", "voted", "own_votes"];
const STATUS_EDIT = ["content", "spoiler_text", "sensitive", "created_at", "account", "poll", "media_attachments", "emojis", "quote"];
const RELATIONSHIP = [
  "id",
  "following",
  "showing_reblogs",
  "notifying",
  "languages",
  "followed_by",
  "blocking",
  "blocked_by",
  "muting",
  "muting_notifications",
  "requested",
  "requested_by",
  "domain_blocking",
  "endorsed",
  "note",
];
const NOTIFICATION = ["id", "type", "group_key", "created_at", "account", "status"];
const NOTIFICATION_GROUP = [
  "group_key",
  "notifications_count",
  "type",
  "most_recent_notification_id",
  "page_min_id",
  "page_max_id",
  "latest_page_notification_at",
  "sample_account_ids",
  "status_id",
];
const TAG = ["id", "name", "url", "history", "following"];
const LIST = ["id", "title", "replies_policy", "exclusive"];
const CONVERSATION = ["id", "accounts", "unread", "last_status"];
const MARKER = ["last_read_id", "version", "updated_at"];

/** The keys of `names` that `value` lacks. */
function lacking(value: unknown, names: readonly string[]): string[] {
  const record = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  return names.filter((name) => record[name] === undefined);
}

describeOnEngines("Mastodon's entity keys", (engine) => {
  let kith: TestKith;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    kith = await engine.testKith();
    alice = await kith.createUser("me_alice");
    bob = await kith.createUser("me_bob");
  });
  afterAll(() => kith.close());

  const get = async (path: string, user?: TestUser): Promise<unknown> => {
    const response = await kith.request("GET", path, user ? { token: user.token } : {});
    expect(response.status).toBe(200);
    return response.json();
  };
  const send = async (method: string, path: string, user: TestUser, json?: unknown): Promise<Record<string, unknown>> => {
    const response = await kith.request(method, path, { token: user.token, ...(json !== undefined && { json }) });
    expect(response.status).toBe(200);
    return (await response.json()) as Record<string, unknown>;
  };

  it("accounts, credential accounts and relationships", async () => {
    expect(lacking(await get(`/api/v1/accounts/${alice.account.id}`), ACCOUNT)).toEqual([]);
    const credentials = (await get("/api/v1/accounts/verify_credentials", alice)) as Record<string, unknown>;
    expect(lacking(credentials, [...ACCOUNT, "source", "role"])).toEqual([]);
    expect(lacking(credentials.source, CREDENTIAL_SOURCE)).toEqual([]);
    const relationships = (await get(`/api/v1/accounts/relationships?id[]=${bob.account.id}`, alice)) as unknown[];
    expect(lacking(relationships[0], RELATIONSHIP)).toEqual([]);
  });

  it("statuses with polls, boosts, edits and context", async () => {
    const status = await send("POST", "/api/v1/statuses", alice, {
      status: "Which one, @me_bob? #entities",
      poll: { options: ["this", "that"], expires_in: 600 },
    });
    expect(lacking(status, STATUS)).toEqual([]);
    expect(lacking(status.poll, POLL)).toEqual([]);
    const boost = await send("POST", `/api/v1/statuses/${status.id}/reblog`, bob);
    expect(lacking(boost, STATUS)).toEqual([]);
    expect(lacking(boost.reblog, STATUS)).toEqual([]);
    expect(lacking(await get(`/api/v1/statuses/${status.id}`), STATUS.slice(0, -5))).toEqual([]);
    await send("PUT", `/api/v1/statuses/${status.id}`, alice, { status: "Which one, edited?" });
    const history = (await get(`/api/v1/statuses/${status.id}/history`)) as unknown[];
    expect(history.map((version) => lacking(version, STATUS_EDIT))).toEqual([[], []]);
    const context = (await get(`/api/v1/statuses/${status.id}/context`)) as Record<string, unknown>;
    expect(lacking(context, ["ancestors", "descendants"])).toEqual([]);
    const tag = await get("/api/v1/tags/entities", alice);
    expect(lacking(tag, TAG)).toEqual([]);
  });

  it("notifications, v1 and grouped v2", async () => {
    const notifications = (await get("/api/v1/notifications", bob)) as unknown[];
    expect(notifications.length).toBeGreaterThan(0);
    for (const notification of notifications) expect(lacking(notification, NOTIFICATION)).toEqual([]);
    const grouped = (await get("/api/v2/notifications", bob)) as Record<string, unknown>;
    expect(lacking(grouped, ["accounts", "statuses", "notification_groups"])).toEqual([]);
    for (const group of grouped.notification_groups as unknown[]) expect(lacking(group, NOTIFICATION_GROUP)).toEqual([]);
  });

  it("lists, conversations and markers", async () => {
    expect(lacking(await send("POST", "/api/v1/lists", alice, { title: "Friends" }), LIST)).toEqual([]);
    await send("POST", "/api/v1/statuses", alice, { status: "@me_bob psst", visibility: "direct" });
    const conversations = (await get("/api/v1/conversations", bob)) as unknown[];
    expect(lacking(conversations[0], CONVERSATION)).toEqual([]);
    const markers = await send("POST", "/api/v1/markers", bob, { home: { last_read_id: "st_0000000000000000000000000a" } });
    expect(lacking(markers.home, MARKER)).toEqual([]);
  });
});
