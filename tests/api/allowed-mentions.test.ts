/**
 * Mastodon's `allowed_mentions` on `POST /api/v1/statuses`: a text that
 * mentions an account not listed is refused with 422, Mastodon's
 * `unexpected_accounts` (Account entities) beside the usual error body, and
 * nothing is posted.
 */
import type { TestKith, TestUser } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";
import type { StatusBody } from "./statuses-support.js";

describeOnEngines("allowed_mentions", (engine) => {
  let kith: TestKith;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;

  beforeAll(async () => {
    kith = await engine.testKith();
    alice = await kith.createUser("alice");
    bob = await kith.createUser("bob");
    carol = await kith.createUser("carol");
  });
  afterAll(() => kith.close());

  const create = (json: Record<string, unknown>) => kith.request("POST", "/api/v1/statuses", { token: alice.token, json });
  const count = async () =>
    ((await (await kith.request("GET", `/api/v1/accounts/${alice.account.id}/statuses`, { token: alice.token })).json()) as unknown[])
      .length;

  it("posts when every mention is allowed", async () => {
    const response = await create({ status: "hi @bob", allowed_mentions: [bob.account.id, carol.account.id] });
    expect(response.status).toBe(200);
    expect(((await response.json()) as StatusBody).mentions.map((mention) => mention.id)).toEqual([bob.account.id]);
  });

  it("refuses a mention not allowed, naming the accounts as Mastodon does", async () => {
    const before = await count();
    const response = await create({ status: "hi @bob and @carol", allowed_mentions: [bob.account.id] });
    expect(response.status).toBe(422);
    const body = (await response.json()) as {
      error: string;
      code: string;
      details: { field: string; message: string }[];
      unexpected_accounts: { id: string; username: string; acct: string }[];
    };
    expect(body.error).toBe("Post would be sent to unexpected accounts");
    expect(body.code).toBe("status.unexpected_mentions");
    expect(body.details).toEqual([{ field: "allowed_mentions", message: carol.account.id, code: "unexpected_account" }]);
    expect(body.unexpected_accounts.map((account) => [account.id, account.acct])).toEqual([[carol.account.id, "carol"]]);
    expect(await count()).toBe(before);
  });

  it("refuses every mention with an empty list given as a form, and leaves statuses without it alone", async () => {
    const form = await kith.request("POST", "/api/v1/statuses", {
      token: alice.token,
      body: new URLSearchParams([
        ["status", "@bob"],
        ["allowed_mentions[]", carol.account.id],
      ]),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(form.status).toBe(422);
    expect(((await form.json()) as { unexpected_accounts: { id: string }[] }).unexpected_accounts.map((account) => account.id)).toEqual([
      bob.account.id,
    ]);
    expect((await create({ status: "@bob @carol" })).status).toBe(200);
    expect((await create({ status: "no mentions", allowed_mentions: [] })).status).toBe(200);
  });
});
