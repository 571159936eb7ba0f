/**
 * On SQLite the full-text entries of posts from other servers are written a
 * moment after their posts, many in one statement (migration 0023,
 * modules/search/deferred-search-entries.ts). What must hold: a search
 * finds such a post as soon as its activity is answered, the entries are
 * written without a search within the delay, entries left by a process that
 * stopped are written when Kith starts, a failed write is tried again, and
 * local posts are indexed as before.
 */
import { coreMigrations } from "@kith/core";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Storage } from "@kith/core";
import { type RemoteServer, type TestKith, type TestUser, createTestKith, eventually, startRemoteServer } from "@kith/core/testing";
import { createSqliteStorage } from "@kith/storage-sqlite";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DeferredSearchEntries } from "../../packages/core/src/modules/search/deferred-search-entries.js";
import { writeFlag } from "../../packages/core/src/platform/storage/boolean-columns.js";
import { federationSettled, publicNoteCreate } from "../support/remote-activities.js";

const CONFIG = { origin: "https://kith.test", allowPrivateAddress: true };

/** Whether the post's entry waits, and whether it is written (it has a key in the index). */
async function entryOf(storage: Storage, statusId: string): Promise<{ waiting: boolean; indexed: boolean }> {
  const waiting = await sql<{ n: number }>`SELECT count(*) AS n FROM statuses_fts_deferred WHERE status_id = ${statusId}`.execute(
    storage.db,
  );
  const indexed = await sql<{ n: number }>`SELECT count(*) AS n FROM statuses_fts_keys WHERE status_id = ${statusId}`.execute(storage.db);
  return { waiting: Number(waiting.rows[0]?.n) > 0, indexed: Number(indexed.rows[0]?.n) > 0 };
}

/** Posts whose entry says `word`, by the index alone. */
async function matching(storage: Storage, word: string): Promise<string[]> {
  const { rows } = await sql<{ status_id: string }>`
    SELECT k.status_id FROM statuses_fts f JOIN statuses_fts_keys k ON k.doc = f.rowid WHERE statuses_fts MATCH ${word}`.execute(
    storage.db,
  );
  return rows.map((row) => row.status_id);
}

const REMOTE_ACCOUNT = "ac_r";

/** A remote account to store posts of by hand. */
async function storeRemoteAccount(storage: Storage, now: string): Promise<void> {
  await sql`INSERT INTO accounts (id, username, domain, acct_key, uri, created_at, updated_at)
    VALUES (${REMOTE_ACCOUNT}, 'rita', 'remote.test', 'rita@remote.test', 'https://remote.test/users/rita', ${now}, ${now})`.execute(
    storage.db,
  );
}

/** A post from another server stored by hand, as no part of Kith counts it. */
async function storeRemotePostByHand(storage: Storage, post: { id: string; accountId: string; text: string; now: string }): Promise<void> {
  await storage.db
    .insertInto("statuses")
    .values({
      id: post.id,
      account_id: post.accountId,
      local: writeFlag(false),
      text: post.text,
      content: `<p>${post.text}</p>`,
      visibility: "public",
      created_at: post.now,
      updated_at: post.now,
    })
    .execute();
}

describe("full-text entries of other servers' posts (SQLite)", () => {
  let remote: RemoteServer;
  let kith: TestKith;
  let alice: TestUser;
  let count = 0;

  beforeAll(async () => {
    remote = await startRemoteServer(["mallory"]);
    kith = await createTestKith({ storage: () => createSqliteStorage({ filename: ":memory:" }), config: CONFIG });
    alice = await kith.createUser("alice");
    await kith.start();
    // The first activity of an unknown sender is handled by a worker, which fetches and stores the actor.
    await post("warming up");
    await federationSettled(kith);
    // Public posts of an account that opted into discovery are found by anyone's search.
    await kith.storage.db.updateTable("accounts").set({ discoverable: true }).where("uri", "=", mallory().id.href).execute();
  });
  afterAll(async () => {
    await kith?.close();
    await remote?.close();
  });

  const mallory = () => remote.actors.mallory ?? expect.unreachable("mallory");

  /** Delivers a public Note of mallory's saying `text`; the id of the post stored (null while a worker stores it). */
  async function post(text: string): Promise<string | null> {
    const id = `${mallory().id.href}/statuses/${++count}`;
    const activity = publicNoteCreate(mallory().id.href, id, `<p>${text}</p>`);
    const response = await kith.fetch(await remote.signedPost("https://kith.test/inbox", activity, mallory()), { clientIp: "127.0.0.1" });
    expect(response.status).toBe(202);
    const row = await kith.storage.db.selectFrom("statuses").select("id").where("uri", "=", id).executeTakeFirst();
    return row?.id ?? null;
  }

  async function search(word: string): Promise<string[]> {
    const response = await kith.request("GET", `/api/v2/search?q=${word}&type=statuses`, { token: alice.token });
    expect(response.status).toBe(200);
    return ((await response.json()) as { statuses: { id: string }[] }).statuses.map((status) => status.id);
  }

  it("leaves a post's entry waiting, and a search finds the post as soon as its activity is answered", async () => {
    const id = (await post("a jar of marmalade")) ?? expect.unreachable("stored in the request");
    expect(await entryOf(kith.storage, id)).toEqual({ waiting: true, indexed: false });
    expect(await search("marmalade")).toEqual([id]);
    expect(await entryOf(kith.storage, id)).toEqual({ waiting: false, indexed: true });
  });

  it("writes waiting entries within the delay, without a search, in one statement", async () => {
    const ids = [await post("quince paste"), await post("quince jelly"), await post("quince tart")];
    for (const id of ids) expect(await entryOf(kith.storage, id ?? "")).toEqual({ waiting: true, indexed: false });
    await eventually(async () => expect((await matching(kith.storage, "quince")).sort()).toEqual([...ids].sort()), { timeoutMs: 5_000 });
  });

  it("finds a waiting post stored by hand, which no one counted", async () => {
    const author = await kith.storage.db.selectFrom("accounts").select("id").where("uri", "=", mallory().id.href).executeTakeFirstOrThrow();
    const id = kith.ids.next("status");
    await storeRemotePostByHand(kith.storage, { id, accountId: author.id, text: "greengage", now: kith.clock.now().toISOString() });
    expect(await entryOf(kith.storage, id)).toEqual({ waiting: true, indexed: false });
    expect(await search("greengage")).toEqual([id]);
  });

  it("indexes a local post by its own commit, as before", async () => {
    const response = await kith.request("POST", "/api/v1/statuses", {
      token: alice.token,
      json: { status: "damson gin", visibility: "public" },
    });
    const { id } = (await response.json()) as { id: string };
    await eventually(async () => expect(await entryOf(kith.storage, id)).toEqual({ waiting: false, indexed: true }));
  });
});

describe("full-text entries left waiting by a process that stopped (SQLite)", () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "kith-deferred-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("are written when Kith starts", async () => {
    const filename = join(dir, "kith.sqlite");
    const now = "2026-11-01T00:00:00.000Z";
    const before = createSqliteStorage({ filename });
    await before.migrate(coreMigrations);
    await storeRemoteAccount(before, now);
    await storeRemotePostByHand(before, { id: "st_left", accountId: REMOTE_ACCOUNT, text: "sloe", now });
    expect(await entryOf(before, "st_left")).toEqual({ waiting: true, indexed: false });
    await before.close();

    const kith = await createTestKith({ storage: () => createSqliteStorage({ filename }), config: CONFIG });
    try {
      await kith.start();
      expect(await entryOf(kith.storage, "st_left")).toEqual({ waiting: false, indexed: true });
      expect(await matching(kith.storage, "sloe")).toEqual(["st_left"]);
    } finally {
      await kith.close();
    }
  });
});

describe("a failed write of waiting entries (SQLite)", () => {
  let storage: Storage;

  beforeAll(async () => {
    storage = createSqliteStorage({ filename: ":memory:" });
    await storage.migrate(coreMigrations);
    const now = "2026-11-01T00:00:00.000Z";
    await storeRemoteAccount(storage, now);
    for (const n of [1, 2, 3])
      await storeRemotePostByHand(storage, { id: `st_${n}`, accountId: REMOTE_ACCOUNT, text: `bramble ${n}`, now });
  });
  afterAll(() => storage?.close());

  it("is tried again after the delay, and neither it nor the flush that met it rejects", async () => {
    let attempts = 0;
    const failingOnce: Pick<Storage, "capabilities" | "db" | "transaction"> = {
      capabilities: storage.capabilities,
      db: storage.db,
      transaction: (work) => (attempts++ === 0 ? Promise.reject(new Error("disk I/O error")) : storage.transaction(work)),
    };
    // A batch of two: three entries take two statements.
    const entries = new DeferredSearchEntries(failingOnce, { delayMs: 20, batch: 2 });
    await expect(entries.flush()).resolves.toBeUndefined();
    expect(await matching(storage, "bramble")).toEqual([]);
    await eventually(async () => expect((await matching(storage, "bramble")).sort()).toEqual(["st_1", "st_2", "st_3"]));
    expect(attempts).toBe(3);
    entries.stop();
  });
});
