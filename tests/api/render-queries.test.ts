/**
 * No N+1 on the busiest read paths: a whole request (timeline, notifications,
 * an account's posts, a thread) runs no more SQL statements for a page of 20
 * entries than for a page of 2, each entry with its own author, post and
 * reactions. Counted on every statement the request sends to the database.
 */
import type { TestKith, TestUser } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { StatementCounter, countedStorage } from "../support/statement-counter.js";
import { describeOnEngines } from "../support/engines.js";
import { favourite, follow, post } from "./timelines-fixtures.js";

describeOnEngines("statements per page", (engine) => {
  const counter = new StatementCounter();
  let kith: TestKith;
  let reader: TestUser;
  let serial = 0;

  beforeAll(async () => {
    kith = await engine.testKith({ wrapStorage: (storage) => countedStorage(storage, counter) });
    reader = await kith.createUser("rq_reader");
  });
  afterAll(() => kith.close());

  /** Statements run by one request of the reader, which must succeed. */
  async function statementsOf(path: string, expectedEntries: number): Promise<number> {
    counter.count = 0;
    const response = await kith.request("GET", path, { token: reader.token });
    const statements = counter.count;
    expect(response.status).toBe(200);
    const body = (await response.json()) as unknown[] | { notification_groups: unknown[] } | { descendants: unknown[] };
    const entries = Array.isArray(body) ? body : "notification_groups" in body ? body.notification_groups : body.descendants;
    expect(entries).toHaveLength(expectedEntries);
    return statements;
  }

  /** `count` posts, each by a new author the reader follows, each favourited and boosted by another new account. */
  async function followedPosts(count: number, options: { replyTo?: { id: string; accountId: string } } = {}): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const author = await kith.createUser(`rq_author${++serial}`);
      const fan = await kith.createUser(`rq_fan${serial}`);
      await follow(kith, reader.account.id, author.account.id);
      const id = await post(kith, author.account.id, {
        text: `post ${serial} #rq${serial}`,
        tags: [`rq${serial}`],
        mentions: [fan.account.id],
        ...(options.replyTo && { inReplyTo: options.replyTo }),
      });
      await favourite(kith, fan.account.id, id);
      await kith.services.statuses.reblog(fan.account.id, id);
      ids.push(id);
    }
    return ids;
  }

  /** `count` notifications for the reader, each from a new account about a new post of the reader. */
  async function notifications(count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      const fan = await kith.createUser(`rq_notifier${++serial}`);
      const mine = await post(kith, reader.account.id, { text: `mine ${serial}` });
      await favourite(kith, fan.account.id, mine);
    }
  }

  it("home, public and an account's posts", async () => {
    await followedPosts(2);
    const home = await statementsOf("/api/v1/timelines/home?limit=2", 2);
    const publicFew = await statementsOf("/api/v1/timelines/public?local=true&limit=2", 2);
    await followedPosts(20);
    expect(await statementsOf("/api/v1/timelines/home?limit=20", 20)).toBeLessThanOrEqual(home);
    expect(await statementsOf("/api/v1/timelines/public?local=true&limit=20", 20)).toBeLessThanOrEqual(publicFew);

    const author = await kith.createUser("rq_prolific");
    for (let i = 0; i < 2; i++) await post(kith, author.account.id, { text: `own ${i}`, tags: ["rqown"] });
    const few = await statementsOf(`/api/v1/accounts/${author.account.id}/statuses?limit=2`, 2);
    for (let i = 0; i < 20; i++) await post(kith, author.account.id, { text: `own more ${i}`, tags: ["rqown"] });
    expect(await statementsOf(`/api/v1/accounts/${author.account.id}/statuses?limit=20`, 20)).toBeLessThanOrEqual(few);
  });

  // With its posts kept from the first request, and the session and the filters kept, the page's own statement is all.
  it("a home, public or hashtag page of kept posts is one statement", async () => {
    await followedPosts(3);
    const pages: readonly (readonly [string, number])[] = [
      ["/api/v1/timelines/home?limit=3", 3],
      ["/api/v1/timelines/public?local=true&limit=3", 3],
      [`/api/v1/timelines/tag/rq${serial}`, 1],
    ];
    for (const [path, entries] of pages) {
      await statementsOf(path, entries);
      expect(await statementsOf(path, entries), path).toBe(1);
    }
  });

  // The senders' versions come with the page; the posts are read apart, with their authors and the reader's marks.
  it("a v1 notifications page of kept posts and accounts is two statements", async () => {
    await notifications(3);
    await statementsOf("/api/v1/notifications?limit=3", 3);
    expect(await statementsOf("/api/v1/notifications?limit=3", 3)).toBe(2);
  });

  it("notifications, v1 and grouped v2", async () => {
    await notifications(2);
    const v1 = await statementsOf("/api/v1/notifications?limit=2", 2);
    const v2 = await statementsOf("/api/v2/notifications?limit=2", 2);
    await notifications(20);
    expect(await statementsOf("/api/v1/notifications?limit=20", 20)).toBeLessThanOrEqual(v1);
    expect(await statementsOf("/api/v2/notifications?limit=20", 20)).toBeLessThanOrEqual(v2);
  });

  it("a thread's context", async () => {
    const rootAuthor = await kith.createUser("rq_root");
    const small = await post(kith, rootAuthor.account.id, { text: "small thread" });
    await followedPosts(2, { replyTo: { id: small, accountId: rootAuthor.account.id } });
    const few = await statementsOf(`/api/v1/statuses/${small}/context`, 2);
    const large = await post(kith, rootAuthor.account.id, { text: "large thread" });
    await followedPosts(20, { replyTo: { id: large, accountId: rootAuthor.account.id } });
    expect(await statementsOf(`/api/v1/statuses/${large}/context`, 20)).toBeLessThanOrEqual(few);
  });
});
