/**
 * A new post's reactions (home fan-out, notifications, streams, federation's
 * hand-off, and on SQLite its full-text entry) are recorded as pending in the
 * post's own transaction, so a process that stops between the answer and the
 * reactions does not lose them: a repeating job runs them again.
 */
import type { TestKith, TestUser } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { UNFINISHED_AFTER_MS } from "../../packages/core/src/modules/statuses/pending-status-reactions.js";
import { describeOnEngines } from "../support/engines.js";

describeOnEngines("pending reactions of new posts", (engine) => {
  let kith: TestKith;
  let author: TestUser;
  let follower: TestUser;

  beforeAll(async () => {
    kith = await engine.testKith();
    author = await kith.createUser("pr_author");
    follower = await kith.createUser("pr_follower");
    const followed = await kith.request("POST", `/api/v1/accounts/${author.account.id}/follow`, { token: follower.token });
    expect(followed.status).toBe(200);
  });
  afterAll(() => kith.close());

  const pending = async () =>
    (await kith.storage.db.selectFrom("pending_post_reactions").select("status_id").execute()).map((row) => row.status_id);
  const inFollowersHome = async (statusId: string) =>
    (await kith.storage.db.selectFrom("home_feed").select("account_id").where("status_id", "=", statusId).execute()).map(
      (row) => row.account_id,
    );
  const found = async (word: string) => {
    const response = await kith.request("GET", `/api/v2/search?q=${word}&type=statuses`, { token: follower.token });
    expect(response.status).toBe(200);
    return ((await response.json()) as { statuses: { id: string }[] }).statuses.map((status) => status.id);
  };

  /** Posts as the author with the reactions held back, as if the process stopped right after the commit. */
  async function postCutShort(text: string): Promise<string> {
    const events = kith.services.events;
    const emitLater = events.emitLater;
    events.emitLater = () => {};
    try {
      return await kith.services.statuses.create(author.account.id, { text });
    } finally {
      events.emitLater = emitLater;
    }
  }

  it("records a new post as pending in its transaction, and removes the record once its reactions ran", async () => {
    // The reactions are held until the record is read: on PostgreSQL they could otherwise finish before the read.
    const events = kith.services.events;
    const emitLater = events.emitLater;
    const held: Parameters<typeof emitLater>[] = [];
    events.emitLater = (...args) => void held.push(args);
    let id: string;
    try {
      id = await kith.services.statuses.create(author.account.id, { text: "recorded zebrawords" });
    } finally {
      events.emitLater = emitLater;
    }
    expect(await pending()).toEqual([id]);
    for (const args of held) events.emitLater(...args);
    await events.settled();
    expect(await pending()).toEqual([]);
    expect(await inFollowersHome(id)).toContain(follower.account.id);
    expect(await found("zebrawords")).toEqual([id]);
  });

  it("runs the reactions a stop cut short again, once the record is old enough, and only once", async () => {
    const id = await postCutShort("interrupted quaggawords");
    expect(await pending()).toEqual([id]);
    expect(await inFollowersHome(id)).not.toContain(follower.account.id);
    // SQLite writes the full-text entry with the reactions; PostgreSQL's index has the post from its commit.
    expect(await found("quaggawords")).toEqual(kith.storage.capabilities.fullTextSearch === "fts5" ? [] : [id]);
    // A record younger than a stop's is a post whose reactions are still running.
    expect(await kith.services.pendingStatusReactions.recover()).toBe(0);
    expect(await pending()).toEqual([id]);
    kith.clock.advance(UNFINISHED_AFTER_MS + 1);
    expect(await kith.services.pendingStatusReactions.recover()).toBe(1);
    expect(await pending()).toEqual([]);
    expect(await inFollowersHome(id)).toContain(follower.account.id);
    expect(await found("quaggawords")).toEqual([id]);
    expect(await kith.services.pendingStatusReactions.recover()).toBe(0);
  });

  it("drops the record of a post deleted before its reactions ran, and indexes nothing", async () => {
    const id = await postCutShort("deleted okapiwords");
    const deleted = await kith.request("DELETE", `/api/v1/statuses/${id}`, { token: author.token });
    expect(deleted.status).toBe(200);
    kith.clock.advance(UNFINISHED_AFTER_MS + 1);
    expect(await kith.services.pendingStatusReactions.recover()).toBe(1);
    expect(await pending()).toEqual([]);
    expect(await inFollowersHome(id)).toEqual([]);
    expect(await found("okapiwords")).toEqual([]);
  });

  it("indexes a post edited before its entry was written as it stands", async () => {
    const id = await postCutShort("first tapirwords");
    const edited = await kith.request("PUT", `/api/v1/statuses/${id}`, { token: author.token, json: { status: "second elandwords" } });
    expect(edited.status).toBe(200);
    kith.clock.advance(UNFINISHED_AFTER_MS + 1);
    expect(await kith.services.pendingStatusReactions.recover()).toBe(1);
    expect(await found("tapirwords")).toEqual([]);
    expect(await found("elandwords")).toEqual([id]);
  });
});
