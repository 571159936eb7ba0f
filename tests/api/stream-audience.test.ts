/**
 * The viewers of a streamed post who marked it (favourite, boost, bookmark,
 * pin, muted conversation) are read for any number of connected viewers, on
 * both engines: the statement names the list five times, so a long list is
 * read in slices.
 */
import type { TestKith } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { viewersWithMarks } from "../../packages/core/src/modules/streaming/stream-audience-store.js";
import { describeOnEngines } from "../support/engines.js";

describeOnEngines("viewers who marked a streamed post", (engine) => {
  let kith: TestKith;

  beforeAll(async () => {
    kith = await engine.testKith();
  });
  afterAll(() => kith.close());

  it("are found among more viewers than one statement may bind", async () => {
    const [author, fan, bookmarker, other] = [
      await kith.createUser("aud_author"),
      await kith.createUser("aud_fan"),
      await kith.createUser("aud_bookmarker"),
      await kith.createUser("aud_other"),
    ];
    const posted = await kith.request("POST", "/api/v1/statuses", { token: author.token, json: { status: "marked" } });
    const post = String(((await posted.json()) as { id: string }).id);
    for (const [user, action] of [
      [fan, "favourite"],
      [bookmarker, "bookmark"],
    ] as const) {
      expect((await kith.request("POST", `/api/v1/statuses/${post}/${action}`, { token: user.token })).status).toBe(200);
    }
    const many = Array.from({ length: 7_000 }, (_, i) => `us_unknown${String(i).padStart(19, "0")}`);
    const viewers = [...many.slice(0, 3_500), fan.account.id, other.account.id, ...many.slice(3_500), bookmarker.account.id];
    const marked = await viewersWithMarks(kith.storage.db, post, viewers);
    expect([...marked].sort()).toEqual([fan.account.id, bookmarker.account.id].sort());
  });
});
