/**
 * The answer to a new post is rendered from what was written rather than
 * read back; it must be the post exactly as GET /api/v1/statuses/:id shows
 * it to its author, whatever the post holds, on every engine.
 */
import type { TestKith, TestUser } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { StatusBody } from "./statuses-support.js";
import { describeOnEngines } from "../support/engines.js";

describeOnEngines("the answer to a new post", (engine) => {
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

  /** Posts, then reads the post back as its author: both bodies. */
  async function postAndRead(token: string, json: Record<string, unknown>, headers?: Record<string, string>) {
    const response = await kith.request("POST", "/api/v1/statuses", { token, json, ...(headers && { headers }) });
    const posted = (await response.json()) as StatusBody;
    expect(response.status, JSON.stringify(posted)).toBe(200);
    const read = await kith.request("GET", `/api/v1/statuses/${posted.id}`, { token });
    expect(read.status).toBe(200);
    return { posted, read: (await read.json()) as unknown };
  }

  it.each([
    ["plain text", { status: "just words" }],
    ["tags in their order, repeated and in other cases", { status: "#Zebra then #apple then #zebra and #Mango #apple" }],
    ["a tag used before, written with other capitals", { status: "again #APPLE" }],
    ["mentions named out of their order of accounts", { status: "hi @carol and @bob and @carol, #apple" }],
    ["a content warning, a language, sensitive, unlisted", { status: "hidden", spoiler_text: "cw", language: "de", visibility: "unlisted" }],
    ["followers only", { status: "for followers", visibility: "private" }],
    ["direct, to a mention", { status: "@bob only you", visibility: "direct" }],
    ["a poll", { status: "choose", poll: { options: ["a", "b"], expires_in: 3600 } }],
  ])("is the post as read back: %s", async (_name, json) => {
    const { posted, read } = await postAndRead(alice.token, json);
    expect(posted).toEqual(read);
  });

  it("is the post as read back for a reply, in a conversation its author muted", async () => {
    const { posted: parent } = await postAndRead(bob.token, { status: "a thread" });
    const muted = await kith.request("POST", `/api/v1/statuses/${parent.id}/mute`, { token: bob.token });
    expect(muted.status).toBe(200);
    const { posted, read } = await postAndRead(bob.token, { status: "@alice replying", in_reply_to_id: parent.id });
    expect(posted.muted).toBe(true);
    expect(posted).toEqual(read);
  });

  it("is the post as read back through an application's session, and with an idempotency key used twice", async () => {
    const app = await kith.request("POST", "/api/v1/apps", {
      json: { client_name: "Answer App", redirect_uris: "urn:ietf:wg:oauth:2.0:oob", website: "https://answer.example" },
    });
    const { client_id } = (await app.json()) as { client_id: string };
    const row = await kith.storage.db.selectFrom("oauth_apps").select("id").where("client_id", "=", client_id).executeTakeFirstOrThrow();
    const session = await kith.services.sessions.issue({ accountId: carol.account.id, appId: row.id, scopes: ["read", "write"] });
    const first = await postAndRead(session.accessToken, { status: "from an app #apple" }, { "idempotency-key": "answer-1" });
    expect(first.posted.application).toEqual({ name: "Answer App", website: "https://answer.example" });
    expect(first.posted).toEqual(first.read);
    const again = await postAndRead(session.accessToken, { status: "from an app #apple" }, { "idempotency-key": "answer-1" });
    expect(again.posted.id).toBe(first.posted.id);
    expect(again.posted).toEqual(again.read);
  });

  it("counts the post in its author's account as reading the account would", async () => {
    const before = await kith.request("GET", `/api/v1/accounts/${bob.account.id}`, { token: bob.token });
    const count = ((await before.json()) as { statuses_count: number }).statuses_count;
    const { posted } = await postAndRead(bob.token, { status: "one more" });
    const account = posted.account;
    expect(account.statuses_count).toBe(count + 1);
    const after = await kith.request("GET", `/api/v1/accounts/${bob.account.id}`, { token: bob.token });
    expect(account).toEqual(await after.json());
  });
});
