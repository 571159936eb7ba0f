/**
 * Who a notification reaches before it is written: local accounts only, and
 * not those who block the sender, are blocked by it, mute it with
 * notifications or block its domain, not those who do not follow a sender of
 * a limited domain, and not those who muted the post's conversation (under
 * the post's own id or its conversation's); all read by one statement, on
 * both engines. A favourite's insert checks the same rules for the liked
 * post's author, finds what the read finds, and writes the author's
 * notification where it does.
 */
import { type TestKith, type TestUser, eventually } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { addFavourite } from "../../packages/core/src/modules/statuses/favourites-store.js";
import { upsertRemoteAccount } from "../../packages/core/src/modules/federation/federation-writes-store.js";
import {
  type NotificationAudience,
  recipientsNotifiedAbout,
  recipientsReached,
} from "../../packages/core/src/modules/notifications/notifications-store.js";
import { describeOnEngines } from "../support/engines.js";

describeOnEngines("recipients a notification reaches", (engine) => {
  let kith: TestKith;
  let sender: TestUser;
  let users: Record<string, TestUser>;

  beforeAll(async () => {
    kith = await engine.testKith();
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
  const reached = (recipientIds: readonly string[], audience: Partial<NotificationAudience> = {}) =>
    recipientsReached(kith.storage.db, { recipientIds, fromId: sender.account.id, conversationOf: null, now: now(), ...audience });

  it("leaves out those who block the sender, are blocked by it, or mute its notifications, and no one else", async () => {
    const user = (name: string) => users[name] as TestUser;
    await ok(user("blocking"), "POST", `/api/v1/accounts/${sender.account.id}/block`);
    await ok(sender, "POST", `/api/v1/accounts/${user("blocked").account.id}/block`);
    await ok(user("muting"), "POST", `/api/v1/accounts/${sender.account.id}/mute`, { notifications: "true" });
    await ok(user("mutingPostsOnly"), "POST", `/api/v1/accounts/${sender.account.id}/mute`, { notifications: "false" });
    await ok(user("mutedUntil"), "POST", `/api/v1/accounts/${sender.account.id}/mute`, { notifications: "true", duration: "60" });

    // In the order asked.
    expect(await reached(ids(all()))).toEqual(ids(["mutingPostsOnly", "domainBlocking", "bystander"]));
    expect(await reached(ids(["bystander", "mutingPostsOnly"]))).toEqual(ids(["bystander", "mutingPostsOnly"]));

    // A mute that has ended keeps no one out.
    kith.clock.advance(61_000);
    expect(await reached(ids(all()))).toEqual(ids(["mutingPostsOnly", "mutedUntil", "domainBlocking", "bystander"]));
  });

  it("takes lists of any length: more recipients than a statement may bind, many times over, as one statement would", async () => {
    const many = Array.from({ length: 9_000 }, (_, i) => `us_unknown${String(i).padStart(19, "0")}`);
    const asked = [...many.slice(0, 4_500), ...ids(["blocking", "bystander", "muting", "mutingPostsOnly"]), ...many.slice(4_500)];
    expect(await reached(asked)).toEqual(ids(["bystander", "mutingPostsOnly"]));
    expect(await reached(asked, { conversationOf: "st_missing" })).toEqual(ids(["bystander", "mutingPostsOnly"]));
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

  it("leaves out remote accounts, those who block the sender's domain and, for a sender of a limited domain, those who do not follow it", async () => {
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
    // Notifications are for local accounts: a remote one is never reached.
    expect(await reached([remote.id, ...ids(["bystander"])])).toEqual(ids(["bystander"]));

    await ok(users.domainBlocking as TestUser, "POST", "/api/v1/domain_blocks", { domain: "refused.example" });
    const fromRemote = { fromId: remote.id };
    expect(await reached(ids(["domainBlocking", "bystander", "mutingPostsOnly"]), fromRemote)).toEqual(
      ids(["bystander", "mutingPostsOnly"]),
    );

    // LIMIT on a parent domain: the sender reaches only those who follow it.
    const at = now();
    await kith.storage.db
      .insertInto("follows")
      .values({
        id: kith.ids.next("follow"),
        account_id: users.bystander?.account.id ?? "",
        target_account_id: remote.id,
        follower_local: true,
        uri: null,
        languages: null,
        created_at: at,
        updated_at: at,
      })
      .execute();
    await kith.services.domainPolicy.createBlock({ domain: "example", severity: "LIMIT" });
    // Of a type no notification policy holds back (a poll's end), only followers; of the others, the recipient's
    // policy decides (`for_limited_accounts`: filtered by default, as a request; dropped, not reached).
    const unfiltered = { ...fromRemote, unfiltered: true };
    expect(await reached(ids(["domainBlocking", "bystander", "mutingPostsOnly"]), unfiltered)).toEqual(ids(["bystander"]));
    expect(await reached(ids(["domainBlocking", "bystander", "mutingPostsOnly"]), fromRemote)).toEqual(ids(["bystander", "mutingPostsOnly"]));
    await ok(users.mutingPostsOnly as TestUser, "PATCH", "/api/v2/notifications/policy", { for_limited_accounts: "drop" });
    expect(await reached(ids(["domainBlocking", "bystander", "mutingPostsOnly"]), fromRemote)).toEqual(ids(["bystander"]));
    // A local sender is on no domain.
    expect(await reached(ids(["bystander", "mutingPostsOnly"]))).toEqual(ids(["bystander", "mutingPostsOnly"]));
  });

  it("leaves out those who muted a post's conversation, by the post's own id or by its conversation's", async () => {
    const bystander = users.bystander as TestUser;
    const root = String((await ok(bystander, "POST", "/api/v1/statuses", { status: "a root" })).id);
    const reply = String((await ok(sender, "POST", "/api/v1/statuses", { status: "@ref_bystander a reply", in_reply_to_id: root })).id);
    const asked = ids(["bystander", "mutingPostsOnly"]);
    expect(await reached(asked, { conversationOf: root })).toEqual(asked);
    expect(await reached(asked, { conversationOf: reply })).toEqual(asked);

    await ok(bystander, "POST", `/api/v1/statuses/${root}/mute`);
    expect(await reached(asked, { conversationOf: root })).toEqual(ids(["mutingPostsOnly"]));
    expect(await reached(asked, { conversationOf: reply })).toEqual(ids(["mutingPostsOnly"]));
    expect(await reached(asked, { conversationOf: "st_missing" })).toEqual(asked);
    // About no post: a muted conversation keeps no one out.
    expect(await reached(asked)).toEqual(asked);

    // A mute kept under the post's own id (as for a post that names no conversation) counts too.
    const mutingPostsOnly = users.mutingPostsOnly as TestUser;
    const other = String((await ok(sender, "POST", "/api/v1/statuses", { status: "another thread" })).id);
    await kith.storage.db
      .insertInto("conversation_mutes")
      .values({ account_id: mutingPostsOnly.account.id, conversation_id: other, created_at: now() })
      .execute();
    expect(await reached(asked, { conversationOf: other })).toEqual(ids(["bystander"]));
  });
  it("a favourite's insert finds the same reach for the liked post's author as the rules' read, case by case", async () => {
    // Every case of the tests above is in place: blocks both ways, mutes with and without notifications, a mute that
    // ended, a blocked domain, a sender on a limited domain that one account follows.
    const bystander = users.bystander as TestUser;
    const muted = String((await ok(bystander, "POST", "/api/v1/statuses", { status: "a thread muted" })).id);
    await ok(bystander, "POST", `/api/v1/statuses/${muted}/mute`);
    const remote = await kith.storage.db
      .selectFrom("accounts")
      .select("id")
      .where("uri", "=", "https://refused.example/users/far")
      .executeTakeFirstOrThrow();
    const posts = [{ author: bystander, id: muted }];
    for (const user of Object.values(users)) {
      posts.push({ author: user, id: String((await ok(user, "POST", "/api/v1/statuses", { status: "liked" })).id) });
    }
    let checked = 0;
    const outcomes = new Set<boolean>();
    for (const fromId of [sender.account.id, remote.id]) {
      for (const post of posts) {
        const favourite = { id: kith.ids.next("favourite"), accountId: fromId, statusId: post.id, uri: null };
        const notice = { id: kith.ids.next("notification"), recipientId: post.author.account.id, groupKey: `favourite-${post.id}-1` };
        const added = await addFavourite(kith.storage.db, favourite, now(), notice);
        const expected = (await reached([post.author.account.id], { fromId, conversationOf: post.id })).length === 1;
        const liking = `${fromId} liking a post of ${post.author.account.username}`;
        expect(added, liking).toEqual({ notificationId: expected ? notice.id : null });
        // The notice was written by the favourite's statement where, and only where, it reached the author.
        const written = await kith.storage.db.selectFrom("notifications").selectAll().where("id", "=", notice.id).executeTakeFirst();
        expect(written ? [written.account_id, written.from_account_id, written.type, written.status_id] : null, liking).toEqual(
          expected ? [post.author.account.id, fromId, "favourite", post.id] : null,
        );
        outcomes.add(expected);
        checked++;
      }
    }
    expect(checked).toBe(2 * (Object.keys(users).length + 1));
    // Both answers came up: the cases tell the rules apart.
    expect(outcomes).toEqual(new Set([true, false]));
    // A favourite already there is not stored again, and tells nothing.
    const [first] = posts;
    const again = { id: kith.ids.next("favourite"), accountId: sender.account.id, statusId: first?.id ?? "", uri: null };
    const noticeAgain = { id: kith.ids.next("notification"), recipientId: first?.author.account.id ?? "", groupKey: "again" };
    expect(await addFavourite(kith.storage.db, again, now(), noticeAgain)).toBeNull();
    expect(await kith.storage.db.selectFrom("notifications").select("id").where("id", "=", noticeAgain.id).execute()).toEqual([]);
  });
  it("tells a post's author of a favourite through the API only where the favourite's insert found them reached", async () => {
    const bystander = users.bystander as TestUser;
    const told = async (statusId: string) =>
      (
        await kith.storage.db
          .selectFrom("notifications")
          .select("id")
          .where("account_id", "=", bystander.account.id)
          .where("type", "=", "favourite")
          .where("status_id", "=", statusId)
          .execute()
      ).length;
    const quiet = String((await ok(bystander, "POST", "/api/v1/statuses", { status: "quiet thread" })).id);
    await ok(bystander, "POST", `/api/v1/statuses/${quiet}/mute`);
    const open = String((await ok(bystander, "POST", "/api/v1/statuses", { status: "open thread" })).id);
    await ok(sender, "POST", `/api/v1/statuses/${quiet}/favourite`);
    await ok(sender, "POST", `/api/v1/statuses/${open}/favourite`);
    await eventually(async () => expect(await told(open)).toBe(1));
    expect(await told(quiet)).toBe(0);
  });
});
