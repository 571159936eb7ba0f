import type { TestKith, TestUser } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";
import { block, post } from "./timelines-fixtures.js";

interface ConversationJson {
  id: string;
  unread: boolean;
  accounts: { id: string }[];
  last_status: { id: string } | null;
}

describeOnEngines("conversations", (engine) => {
  let kith: TestKith;
  let serial = 0;
  const user = (): Promise<TestUser> => kith.createUser(`cv${++serial}`);

  beforeAll(async () => {
    kith = await engine.testKith();
  });
  afterAll(() => kith.close());

  async function conversations(u: TestUser, query = ""): Promise<{ response: Response; body: ConversationJson[] }> {
    const response = await kith.request("GET", `/api/v1/conversations${query}`, { token: u.token });
    expect(response.status).toBe(200);
    return { response, body: (await response.json()) as ConversationJson[] };
  }

  it("a direct post opens a conversation for each participant, unread for recipients", async () => {
    const [alice, bob] = [await user(), await user()];
    const seen: unknown[] = [];
    const stop = await kith.pubsub.subscribe(`stream:direct:${bob.account.id}`, (m) => seen.push(m));
    const dm = await post(kith, alice.account.id, { visibility: "direct", mentions: [bob.account.id] });
    await stop();
    const [mine] = (await conversations(alice)).body;
    const [theirs] = (await conversations(bob)).body;
    expect(mine).toMatchObject({ unread: false, accounts: [{ id: bob.account.id }], last_status: { id: dm } });
    expect(theirs).toMatchObject({ unread: true, accounts: [{ id: alice.account.id }], last_status: { id: dm } });
    expect(seen).toContainEqual({ event: "conversation", conversationId: theirs?.id });
  });

  it("replies in the thread move the conversation to the newest post", async () => {
    const [alice, bob] = [await user(), await user()];
    const first = await post(kith, alice.account.id, { visibility: "direct", mentions: [bob.account.id] });
    const reply = await post(kith, bob.account.id, {
      visibility: "direct",
      mentions: [alice.account.id],
      inReplyTo: { id: first, accountId: alice.account.id },
      conversationId: first,
    });
    const { body } = await conversations(alice);
    expect(body).toHaveLength(1);
    expect(body[0]).toMatchObject({ unread: true, last_status: { id: reply } });
  });

  it("marks read, deletes, and hides other people's conversations as not found", async () => {
    const [alice, bob, carol] = [await user(), await user(), await user()];
    await post(kith, alice.account.id, { visibility: "direct", mentions: [bob.account.id] });
    const [conversation] = (await conversations(bob)).body;
    const id = conversation?.id ?? "";
    expect((await kith.request("POST", `/api/v1/conversations/${id}/read`, { token: carol.token })).status).toBe(404);
    const read = await kith.request("POST", `/api/v1/conversations/${id}/read`, { token: bob.token });
    expect(await read.json()).toMatchObject({ id, unread: false });
    const unread = await kith.request("POST", `/api/v1/conversations/${id}/unread`, { token: bob.token });
    expect(await unread.json()).toMatchObject({ id, unread: true });
    expect((await kith.request("DELETE", `/api/v1/conversations/${id}`, { token: carol.token })).status).toBe(404);
    expect((await kith.request("DELETE", `/api/v1/conversations/${id}`, { token: bob.token })).status).toBe(200);
    expect((await conversations(bob)).body).toEqual([]);
    expect((await kith.request("DELETE", `/api/v1/conversations/${id}`, { token: bob.token })).status).toBe(404);
    expect((await kith.request("GET", "/api/v1/conversations")).status).toBe(401);
  });

  it("no conversation for a recipient who blocks the author", async () => {
    const [alice, bob] = [await user(), await user()];
    await block(kith, bob.account.id, alice.account.id);
    await post(kith, alice.account.id, { visibility: "direct", mentions: [bob.account.id] });
    expect((await conversations(bob)).body).toEqual([]);
  });

  it("pages by the last post through Link headers", async () => {
    const [alice, bob, carol] = [await user(), await user(), await user()];
    await post(kith, bob.account.id, { visibility: "direct", mentions: [alice.account.id] });
    const newer = await post(kith, carol.account.id, { visibility: "direct", mentions: [alice.account.id] });
    const { response, body } = await conversations(alice, "?limit=1");
    expect(body.map((c) => c.last_status?.id)).toEqual([newer]);
    expect(response.headers.get("link")).toContain(`max_id=${newer}`);
    const next = await conversations(alice, `?limit=1&max_id=${newer}`);
    expect(next.body[0]?.accounts[0]?.id).toBe(bob.account.id);
  });

  it("refuses malformed paging, unknown ids on read, and guests", async () => {
    const alice = await user();
    expect((await kith.request("GET", "/api/v1/conversations?limit=lots", { token: alice.token })).status).toBe(400);
    expect((await kith.request("GET", `/api/v1/conversations?max_id=${"x".repeat(500)}`, { token: alice.token })).status).toBe(422);
    expect((await kith.request("POST", "/api/v1/conversations/cv_00000000000000000000000000/read", { token: alice.token })).status).toBe(
      404,
    );
    expect((await kith.request("DELETE", "/api/v1/conversations/cv_00000000000000000000000000", { token: alice.token })).status).toBe(404);
    expect((await kith.request("GET", "/api/v1/conversations")).status).toBe(401);
  });
});
