/**
 * Who refuses a notification before it is written: each of the four refusals
 * (blocking the sender, blocked by it, muting it with notifications, blocking
 * its domain) and muted conversations (under the post's own id or its
 * conversation's), read by one statement each, on both engines.
 */
import { type TestKith, type TestUser, eventually } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { upsertRemoteAccount } from "../../packages/core/src/storage/repositories/federation-writes.js";
import {
  recipientsMutingConversationOf,
  recipientsNotifiedAbout,
  recipientsRefusing,
} from "../../packages/core/src/storage/repositories/notifications.js";
import { describeFeedsOnEngines } from "./timelines-engines.js";

describeFeedsOnEngines("recipients refusing a notification", (makeKith) => {
  let kith: TestKith;
  let sender: TestUser;
  let users: Record<string, TestUser>;

  beforeAll(async () => {
    kith = await makeKith();
    sender = await kith.createUser("ref_sender");
    users = {};
    for (const name of ["blocking", "blocked", "muting", "mutingPostsOnly", "mutedUntil", "domainBlocking", "bystander"]) {
      users[name] = await kith.createUser(`ref_${name.toLowerCase()}`);
    }
  });
  afterAll(() => kith.close());

  async function ok(user: TestUser, method: string, path: string, form?: Record<string, string>): Promise<Record<string, unknown>> {
    const response = await kith.request(method, path, { token: user.token, ...(form && { form }) });
    expect(response.status, `${method} ${path}`).toBe(200);
    return (await response.json()) as Record<string, unknown>;
  }

  const now = () => kith.clock.now().toISOString();
  const ids = (names: readonly string[]) => names.map((name) => users[name]?.account.id ?? "");
  const all = () => Object.keys(users);

  it("names those who block the sender, are blocked by it, or mute its notifications, and no one else", async () => {
    const user = (name: string) => users[name] as TestUser;
    await ok(user("blocking"), "POST", `/api/v1/accounts/${sender.account.id}/block`);
    await ok(sender, "POST", `/api/v1/accounts/${user("blocked").account.id}/block`);
    await ok(user("muting"), "POST", `/api/v1/accounts/${sender.account.id}/mute`, { notifications: "true" });
    await ok(user("mutingPostsOnly"), "POST", `/api/v1/accounts/${sender.account.id}/mute`, { notifications: "false" });
    await ok(user("mutedUntil"), "POST", `/api/v1/accounts/${sender.account.id}/mute`, { notifications: "true", duration: "60" });

    const refusing = await recipientsRefusing(kith.storage.db, ids(all()), sender.account.id, now());
    expect([...refusing].sort()).toEqual(ids(["blocking", "blocked", "muting", "mutedUntil"]).sort());

    // A mute that has ended refuses nothing.
    kith.clock.advance(61_000);
    const later = await recipientsRefusing(kith.storage.db, ids(all()), sender.account.id, now());
    expect([...later].sort()).toEqual(ids(["blocking", "blocked", "muting"]).sort());
  });

  it("takes lists of any length: more recipients than a statement may bind, four times over, as one statement would", async () => {
    const many = Array.from({ length: 9_000 }, (_, i) => `us_unknown${String(i).padStart(19, "0")}`);
    const asked = [...many.slice(0, 4_500), ...ids(["blocking", "muting", "bystander"]), ...many.slice(4_500)];
    const refusing = await recipientsRefusing(kith.storage.db, asked, sender.account.id, now());
    expect([...refusing].sort()).toEqual(ids(["blocking", "muting"]).sort());
    expect(await recipientsMutingConversationOf(kith.storage.db, asked, "st_missing")).toEqual(new Set());
  });

  it("finds those already told about a post among more recipients than one statement may bind", async () => {
    const bystander = users.bystander as TestUser;
    const post = String((await ok(sender, "POST", "/api/v1/statuses", { status: "@ref_bystander told once" })).id);
    const many = Array.from({ length: 33_000 }, (_, i) => `us_unknown${String(i).padStart(19, "0")}`);
    const asked = [...many.slice(0, 16_500), bystander.account.id, ...many.slice(16_500)];
    const told = await eventually(async () => {
      const found = await recipientsNotifiedAbout(kith.storage.db, asked, post, ["mention", "status"]);
      expect(found.size).toBe(1);
      return found;
    });
    expect([...told]).toEqual([bystander.account.id]);
  });

  it("names those who block the sender's domain", async () => {
    const remote = await upsertRemoteAccount(
      kith.storage.db,
      "us_refusalsremote000000000001",
      {
        uri: "https://refused.example/users/far",
        username: "far",
        domain: "refused.example",
        displayName: "Far",
        note: "",
        actorType: "Person",
        locked: false,
        discoverable: true,
        url: null,
        inboxUrl: "https://refused.example/users/far/inbox",
        sharedInboxUrl: null,
      },
      now(),
    );
    await ok(users.domainBlocking as TestUser, "POST", "/api/v1/domain_blocks", { domain: "refused.example" });
    const refusing = await recipientsRefusing(kith.storage.db, ids(["domainBlocking", "bystander"]), remote.id, now());
    expect([...refusing]).toEqual(ids(["domainBlocking"]));
  });

  it("names those who muted a post's conversation, by the post's own id or by its conversation's", async () => {
    const bystander = users.bystander as TestUser;
    const root = String((await ok(bystander, "POST", "/api/v1/statuses", { status: "a root" })).id);
    const reply = String((await ok(sender, "POST", "/api/v1/statuses", { status: "@ref_bystander a reply", in_reply_to_id: root })).id);
    const asked = ids(["bystander", "muting"]);
    expect(await recipientsMutingConversationOf(kith.storage.db, asked, root)).toEqual(new Set());
    expect(await recipientsMutingConversationOf(kith.storage.db, asked, reply)).toEqual(new Set());

    await ok(bystander, "POST", `/api/v1/statuses/${root}/mute`);
    expect([...(await recipientsMutingConversationOf(kith.storage.db, asked, root))]).toEqual([bystander.account.id]);
    expect([...(await recipientsMutingConversationOf(kith.storage.db, asked, reply))]).toEqual([bystander.account.id]);
    expect(await recipientsMutingConversationOf(kith.storage.db, asked, "st_missing")).toEqual(new Set());

    // A mute kept under the post's own id (as for a post that names no conversation) counts too.
    const muting = users.muting as TestUser;
    const other = String((await ok(sender, "POST", "/api/v1/statuses", { status: "another thread" })).id);
    await kith.storage.db
      .insertInto("conversation_mutes")
      .values({ account_id: muting.account.id, conversation_id: other, created_at: now() })
      .execute();
    expect([...(await recipientsMutingConversationOf(kith.storage.db, asked, other))]).toEqual([muting.account.id]);
  });
});
