/**
 * An incoming activity's sender, the tombstone its listener checks and the
 * post stored under the same id are read in one statement
 * (stored-senders.ts), with the local post a Like is of. Its subqueries must
 * answer alike on both engines: a live entry, an expired one, none; a post or
 * none; a local post, one of another author, of a suspended author, none; and
 * no sender at all. Where a statement is a round trip to a server, reads
 * asked at once go out as one statement, and answer as each would alone.
 */
import type { TestKith } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  type SenderChecks,
  type SenderWithChecks,
  findSenderWithChecks,
  upsertRemoteAccount,
} from "../../packages/core/src/modules/federation/federation-writes-store.js";
import { describeOnEngines } from "../support/engines.js";
import { StatementCounter } from "../support/statement-counter.js";

describeOnEngines("an account read with the checks of an incoming activity", (engine) => {
  let kith: TestKith;
  const uri = "https://remote.example/users/sender";
  const now = "2026-06-01T00:00:00.000Z";

  beforeAll(async () => {
    kith = await engine.testKith();
    await upsertRemoteAccount(
      kith.storage.db,
      "ac_sender",
      {
        uri,
        username: "sender",
        domain: "remote.example",
        displayName: "Sender",
        note: "",
        actorType: "Person",
        locked: false,
        discoverable: true,
        url: null,
        inboxUrl: `${uri}/inbox`,
        sharedInboxUrl: null,
      },
      now,
    );
    await kith.storage.db
      .insertInto("federation_kv")
      .values([
        { key: "forever", value: "true", expires_at: null },
        { key: "later", value: "true", expires_at: "2026-07-01T00:00:00.000Z" },
        { key: "earlier", value: "true", expires_at: "2026-05-01T00:00:00.000Z" },
      ])
      .execute();
  });
  afterAll(() => kith.close());

  it("tells whether the entry is live, beside the whole account row", async () => {
    const expected = await kith.storage.db.selectFrom("accounts").selectAll().where("uri", "=", uri).executeTakeFirstOrThrow();
    for (const [key, live] of [
      ["forever", true],
      ["later", true],
      ["earlier", false],
      ["missing", false],
    ] as const) {
      const found = await findSenderWithChecks(kith.storage.db, {
        actorUri: uri,
        entryKey: key,
        postUri: "https://remote.example/notes/none",
        now,
      });
      expect(found?.entryLive, key).toBe(live);
      expect(found?.postId).toBeNull();
      expect(found?.account).toEqual(expected);
    }
  });

  it("names the post stored under the id", async () => {
    const posted = await kith.request("POST", "/api/v1/statuses", {
      token: (await kith.createUser("checks_poster")).token,
      json: { status: "Stored" },
    });
    expect(posted.status).toBe(200);
    const { id } = (await posted.json()) as { id: string };
    // Stored under an id of its own, as a post from another server is.
    const postUri = "https://remote.example/notes/stored";
    await kith.storage.db.updateTable("statuses").set({ uri: postUri }).where("id", "=", id).execute();
    const found = await findSenderWithChecks(kith.storage.db, { actorUri: uri, entryKey: "missing", postUri, now });
    expect(found?.postId).toBe(id);
  });

  it("reads the local post a Like is of, by its author's username and its id", async () => {
    const author = await kith.createUser("Liked_Author");
    // An account of that name: the post is looked for under its id, and is not there.
    await kith.createUser("other_author");
    const posted = await kith.request("POST", "/api/v1/statuses", { token: author.token, json: { status: "Like me" } });
    expect(posted.status).toBe(200);
    const { id } = (await posted.json()) as { id: string };
    const expected = await kith.storage.db.selectFrom("accounts").selectAll().where("uri", "=", uri).executeTakeFirstOrThrow();
    const checks = { actorUri: uri, entryKey: "earlier", postUri: "https://remote.example/likes/1", now };

    const found = await findSenderWithChecks(kith.storage.db, { ...checks, localStatus: { username: "liked_author", statusId: id } });
    expect(found?.account).toEqual(expected);
    expect(found?.entryLive).toBe(false);
    expect(found?.postId).toBeNull();
    const row = await kith.storage.db.selectFrom("statuses").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    expect(found?.localStatus).toEqual({
      id,
      account_id: row.account_id,
      reblog_of_id: null,
      visibility: "public",
      local: row.local,
    });

    for (const [username, statusId] of [
      ["other_author", id],
      ["liked_author", "st_none"],
    ] as const) {
      const missing = await findSenderWithChecks(kith.storage.db, { ...checks, localStatus: { username, statusId } });
      expect(missing?.account, username).toEqual(expected);
      expect(missing?.localStatus, `${username} ${statusId}`).toBeNull();
    }

    await kith.storage.db.updateTable("accounts").set({ suspended_at: now }).where("id", "=", author.account.id).execute();
    const suspended = await findSenderWithChecks(kith.storage.db, { ...checks, localStatus: { username: "liked_author", statusId: id } });
    expect(suspended?.localStatus).toBeNull();
    expect(
      await findSenderWithChecks(kith.storage.db, {
        ...checks,
        actorUri: "https://elsewhere.example/users/nobody",
        localStatus: { username: "liked_author", statusId: id },
      }),
    ).toBeNull();
  });

  it("is null when no account is stored at the URI, whatever the checks", async () => {
    const checks = { entryKey: "forever", postUri: "https://remote.example/notes/none", now };
    expect(await findSenderWithChecks(kith.storage.db, { actorUri: "https://elsewhere.example/users/nobody", ...checks })).toBeNull();
  });
  it("answers reads asked at once with one statement on a database server, each as it would be answered alone", async () => {
    const author = await kith.createUser("batch_author");
    const posted = await kith.request("POST", "/api/v1/statuses", { token: author.token, json: { status: "Liked in a batch" } });
    expect(posted.status).toBe(200);
    const { id } = (await posted.json()) as { id: string };
    const suspendedPost = await kith.storage.db
      .selectFrom("statuses")
      .innerJoin("accounts", "accounts.id", "statuses.account_id")
      .select("statuses.id")
      .where("accounts.acct_key", "=", "liked_author")
      .executeTakeFirstOrThrow();
    const none = "https://remote.example/notes/none";
    const cases: SenderChecks[] = [
      ...["forever", "later", "earlier", "missing"].map((entryKey) => ({ actorUri: uri, entryKey, postUri: none, now })),
      { actorUri: uri, entryKey: "missing", postUri: "https://remote.example/notes/stored", now },
      { actorUri: "https://elsewhere.example/users/nobody", entryKey: "forever", postUri: none, now },
      { actorUri: uri, entryKey: "later", postUri: none, now, localStatus: { username: "batch_author", statusId: id } },
      { actorUri: uri, entryKey: "missing", postUri: none, now, localStatus: { username: "other_author", statusId: id } },
      { actorUri: uri, entryKey: "missing", postUri: none, now, localStatus: { username: "batch_author", statusId: "st_none" } },
      { actorUri: uri, entryKey: "missing", postUri: none, now, localStatus: { username: "liked_author", statusId: suspendedPost.id } },
      {
        actorUri: "https://elsewhere.example/users/nobody",
        entryKey: "missing",
        postUri: none,
        now,
        localStatus: { username: "batch_author", statusId: id },
      },
    ];
    // One at a time: each read goes out alone.
    const alone: (SenderWithChecks | null)[] = [];
    for (const checks of cases) alone.push(await findSenderWithChecks(kith.storage.db, checks));
    expect(alone.map((found) => found?.entryLive)).toEqual([
      true,
      true,
      false,
      false,
      false,
      undefined,
      true,
      false,
      false,
      false,
      undefined,
    ]);
    expect(alone[6]?.localStatus?.id).toBe(id);
    expect(alone.slice(7, 10).map((found) => found?.localStatus)).toEqual([null, null, null]);
    expect(alone[4]?.postId).not.toBeNull();

    const counter = new StatementCounter();
    const counted = kith.storage.db.withPlugin(counter);
    const together = await Promise.all(cases.map((checks) => findSenderWithChecks(counted, checks)));
    expect(together).toEqual(alone);
    // SQLite answers in the process: its reads go out one by one.
    const joined = kith.storage.capabilities.serverRoundTrips === true;
    expect(joined).toBe(kith.storage.capabilities.engine === "postgres");
    expect(counter.count).toBe(joined ? 1 : cases.length);

    // More reads than one statement joins: in statements of 32, each answer still in its place.
    counter.count = 0;
    const many = Array.from({ length: 4 }, () => cases).flat();
    expect(await Promise.all(many.map((checks) => findSenderWithChecks(counted, checks)))).toEqual(
      Array.from({ length: 4 }, () => alone).flat(),
    );
    expect(counter.count).toBe(joined ? 2 : many.length);

    // A transaction's reads are its own: each goes out when asked.
    counter.count = 0;
    const inTransaction = await counted
      .transaction()
      .execute((trx) => Promise.all(cases.map((checks) => findSenderWithChecks(trx, checks))));
    expect(inTransaction).toEqual(alone);
    expect(counter.count).toBe(cases.length);
  });
});
