/**
 * What one incoming activity costs the database when it is handled in its
 * request: a Create of a public Note and a Like of a local post, from a
 * sender stored already, counted on every statement sent (those of Fedify's
 * key-value store and of the reactions included). The bounds keep statements
 * that were taken out (the queue's job, the sender read twice, the post read
 * back, a new post's relations deleted first, Fedify's memory of handled
 * Creates and Likes, the counter's write, the notification's rules one
 * statement each, the liker of an incoming Like read, the liked post read
 * apart from the sender, the followers read once for fan-out and once for
 * the notifications) from coming back.
 */
import { type RemoteServer, type TestKith, type TestUser, eventually, startRemoteServer } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { follow } from "../api/timelines-fixtures.js";
import { federationSettled, publicNoteCreate } from "../support/remote-activities.js";
import { StatementCounter, countedStorage } from "../support/statement-counter.js";
import { describeOnEngines } from "../support/engines.js";

/**
 * A Create of a public Note with no mentions or tags, its reactions included (7 before the tombstone of its object
 * and the post stored under its object's id were read with its sender; 19 before the sender was read once, the new
 * post's relations were written without deleting first and the post was no longer read back; 15 before the
 * reactions took what they need of the post from its event instead of reading it; 5 before fan-out and the
 * notifications shared one read of the author's local followers).
 */
const STATEMENTS_PER_CREATE = 4;
/**
 * A Like of a local post, its notification included (7 before its tombstone was read with its sender; 20 before
 * the sender was read once, Fedify's memory of handled activities, a read and a write, gave way to the tombstones'
 * read, and the liked post and its local author were read in one statement; 17 before the notification took the
 * post's author from the event and the outgoing side stopped reading the post of a remote account's Like; 11
 * before who the notification reaches was read by one statement instead of four and the outgoing side stopped
 * reading the liker of an incoming Like; 6 before the liked post was read with the sender; 5 before the favourite's
 * insert checked who its notification reaches).
 */
const STATEMENTS_PER_LIKE = 4;
/**
 * On PostgreSQL a stored post is counted on its author, and a favourite on its post, by the insert's own statement
 * (a data-modifying `with`): one statement, one round trip fewer for each. The post's insert also reads its author's
 * first local followers, which the reactions read apart before (3). A favourite's statement also writes the
 * notification of the liked post's author (3 before; 4 before its insert checked who its notification reaches).
 */
const POSTGRES_STATEMENTS_PER_CREATE = 2;
const POSTGRES_STATEMENTS_PER_LIKE = 2;

// The bounds are those of the speed-ups together: on even when a run turns them off (KITH_OPTIMISATIONS_OFF).
const OPTIMISATIONS = { inboxFront: true, compactActivities: true, batchDelivery: true, kvMemory: true };
const CONFIG = { origin: "https://kith.test", allowPrivateAddress: true, optimisations: OPTIMISATIONS };

/** The bounds of each engine. */
const BOUNDS = {
  sqlite: { create: STATEMENTS_PER_CREATE, like: STATEMENTS_PER_LIKE },
  postgres: { create: POSTGRES_STATEMENTS_PER_CREATE, like: POSTGRES_STATEMENTS_PER_LIKE },
} as const;

describeOnEngines("statements per incoming activity", (engine) => {
  const counter = new StatementCounter();
  statementsPerActivity(counter, BOUNDS[engine.name], () =>
    engine.testKith({ wrapStorage: (storage) => countedStorage(storage, counter), config: CONFIG }),
  );
});

function statementsPerActivity(
  counter: StatementCounter,
  bounds: { readonly create: number; readonly like: number },
  start: () => Promise<TestKith>,
): void {
  let remote: RemoteServer;
  let kith: TestKith;
  let alice: TestUser;
  let count = 0;

  beforeAll(async () => {
    remote = await startRemoteServer(["mallory"]);
    kith = await start();
    alice = await kith.createUser("alice");
    await kith.start();
  });
  afterAll(async () => {
    await kith?.close();
    await remote?.close();
  });

  const mallory = () => remote.actors.mallory ?? expect.unreachable("mallory");

  function createOf(): Record<string, unknown> {
    ++count;
    return publicNoteCreate(mallory().id.href, `${mallory().id.href}/statuses/${count}`, `<p>note ${count}</p>`);
  }

  async function likeOf(): Promise<Record<string, unknown>> {
    const posted = await kith.request("POST", "/api/v1/statuses", {
      token: alice.token,
      json: { status: "like me", visibility: "public" },
    });
    const { id } = (await posted.json()) as { id: string };
    return {
      "@context": "https://www.w3.org/ns/activitystreams",
      id: `${mallory().id.href}/likes/${++count}`,
      type: "Like",
      actor: mallory().id.href,
      object: `https://kith.test/users/alice/statuses/${id}`,
    };
  }

  /** Statements of one activity, signed before counting starts; the answer must be 202. */
  async function statementsOf(activity: Record<string, unknown>): Promise<number> {
    const request = await remote.signedPost("https://kith.test/inbox", activity, mallory());
    counter.count = 0;
    const response = await kith.fetch(request, { clientIp: "127.0.0.1" });
    const statements = counter.count;
    expect(response.status).toBe(202);
    return statements;
  }

  const postsOfMallory = () =>
    kith.storage.db
      .selectFrom("accounts")
      .select(["statuses_count", "last_status_at"])
      .where("uri", "=", mallory().id.href)
      .executeTakeFirstOrThrow();

  it("a Create and a Like from a known sender stay within their statements", async () => {
    // The first activity of an unknown sender is handled by a worker, which fetches and stores the actor.
    await statementsOf(createOf());
    await federationSettled(kith);
    await statementsOf(createOf());
    const postsBefore = await postsOfMallory();
    expect(await statementsOf(createOf())).toBeLessThanOrEqual(bounds.create);
    await statementsOf(await likeOf());
    const like = await likeOf();
    expect(await statementsOf(like)).toBeLessThanOrEqual(bounds.like);
    const favourites = await kith.storage.db.selectFrom("favourites").select("uri").where("uri", "=", String(like.id)).execute();
    expect(favourites).toHaveLength(1);
    // What the statements left out is still written: the counters moved by the inserts.
    const liked = await kith.storage.db
      .selectFrom("statuses")
      .innerJoin("favourites", "favourites.status_id", "statuses.id")
      .select("statuses.favourites_count")
      .where("favourites.uri", "=", String(like.id))
      .executeTakeFirstOrThrow();
    expect(liked.favourites_count).toBe(1);
    // And the liked post's author was told, within the Like's statements.
    const told = await kith.storage.db
      .selectFrom("notifications")
      .innerJoin("favourites", "favourites.status_id", "notifications.status_id")
      .select(["notifications.account_id", "notifications.type"])
      .where("favourites.uri", "=", String(like.id))
      .where("notifications.from_account_id", "=", (eb) => eb.selectFrom("accounts").select("id").where("uri", "=", mallory().id.href))
      .execute();
    expect(told).toEqual([{ account_id: alice.account.id, type: "favourite" }]);
    const postsAfter = await postsOfMallory();
    expect(postsAfter.statuses_count).toBe(postsBefore.statuses_count + 1);
    expect(postsAfter.last_status_at).not.toBeNull();
  });

  it("a post whose followers were read with its insert reaches them", async () => {
    const author = await kith.storage.db.selectFrom("accounts").select("id").where("uri", "=", mallory().id.href).executeTakeFirstOrThrow();
    // Alice follows mallory and asked to be told of mallory's posts.
    await follow(kith, alice.account.id, author.id, { notify: true });
    const create = createOf();
    await statementsOf(create);
    const post = await kith.storage.db
      .selectFrom("statuses")
      .select("id")
      .where("uri", "=", String((create.object as { id: string }).id))
      .executeTakeFirstOrThrow();
    await eventually(async () => {
      const fed = await kith.storage.db.selectFrom("home_feed").select("status_id").where("account_id", "=", alice.account.id).execute();
      expect(fed.map((row) => row.status_id)).toContain(post.id);
      const told = await kith.storage.db
        .selectFrom("notifications")
        .select("type")
        .where("account_id", "=", alice.account.id)
        .where("status_id", "=", post.id)
        .execute();
      expect(told).toEqual([{ type: "status" }]);
    });
  });
}
