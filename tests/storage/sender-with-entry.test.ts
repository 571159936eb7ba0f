/**
 * An incoming activity's sender and the tombstone its listener checks are
 * read in one statement (stored-senders.ts). Its subquery must answer alike
 * on both engines: a live entry, an expired one, none, and no sender at all.
 */
import type { TestKith } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { findAccountByUriWithEntry, upsertRemoteAccount } from "../../packages/core/src/storage/repositories/federation-writes.js";
import { describeFeedsOnEngines } from "../api/timelines-engines.js";

describeFeedsOnEngines("an account read with a key-value entry", (makeKith) => {
  let kith: TestKith;
  const uri = "https://remote.example/users/sender";
  const now = "2026-06-01T00:00:00.000Z";

  beforeAll(async () => {
    kith = await makeKith();
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
      const found = await findAccountByUriWithEntry(kith.storage.db, uri, key, now);
      expect(found?.entryLive, key).toBe(live);
      expect(found?.account).toEqual(expected);
    }
  });

  it("is null when no account is stored at the URI, whatever the entry", async () => {
    expect(await findAccountByUriWithEntry(kith.storage.db, "https://elsewhere.example/users/nobody", "forever", now)).toBeNull();
  });
});
