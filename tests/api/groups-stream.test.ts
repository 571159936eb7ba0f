/**
 * The `group` stream (`stream=group&group=<id>`): a group's new statuses,
 * to anyone for a non-secret group, to members only for a secret one (a
 * member removed while listening hears nothing more).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { eventually, type TestKith, type TestUser } from "@kith/core/testing";
import { type NodeServer, startNodeServer } from "@kith/http-adapter-node";
import { describeOnEngines } from "../support/engines.js";
import { call, createGroup } from "../support/groups.js";
import { openSocket, type StreamingSocket, wsUrl } from "../support/streaming-socket.js";

describeOnEngines("group streams", (engine) => {
  let kith: TestKith;
  let server: NodeServer;
  let owner: TestUser;
  let member: TestUser;
  let stranger: TestUser;

  const post = async (user: TestUser, json: Record<string, unknown>): Promise<string> => {
    const answer = await call(kith, "POST", "/api/v1/statuses", user.token, json);
    expect(answer.status).toBe(200);
    return answer.body.id as string;
  };
  const updates = (socket: StreamingSocket, label: string) =>
    socket.messages
      .filter((message) => message.event === "update" && message.stream?.[0] === label)
      .map((message) => ({ stream: message.stream, id: JSON.parse(message.payload ?? "{}").id as string }));
  async function listen(user: TestUser | undefined, groupId: string): Promise<StreamingSocket> {
    const socket = await openSocket(wsUrl(server), user ? [user.token] : undefined);
    socket.send({ type: "subscribe", stream: "group", group: groupId });
    socket.send({ type: "subscribe", stream: "public" });
    await socket.settle();
    return socket;
  }

  beforeAll(async () => {
    kith = await engine.testKith();
    server = await startNodeServer({ handler: (request, info) => kith.fetch(request, info) });
    owner = await kith.createUser("gsowner");
    member = await kith.createUser("gsmember");
    stranger = await kith.createUser("gsstranger");
  });
  afterAll(async () => {
    await server.close();
    await kith.close();
  });

  it("streams a non-secret group's statuses to anyone, and nothing else", async () => {
    const group = await createGroup(kith, owner.token, { join_mode: "OPEN" });
    const guest = await listen(undefined, group.id);
    const signedIn = await listen(stranger, group.id);
    await post(owner, { status: "not in the group", visibility: "public" });
    const inGroup = await post(owner, { status: "in the group", group_id: group.id });
    for (const socket of [guest, signedIn]) {
      await eventually(() => expect(updates(socket, "group")).toEqual([{ stream: ["group", group.id], id: inGroup }]));
    }
    for (const socket of [guest, signedIn]) socket.ws.close();
  });

  it("streams a secret group's statuses to its members only, and stops at a member's removal", async () => {
    const group = await createGroup(kith, owner.token, { secret: true, join_mode: "INVITE_ONLY" });
    const removed = await kith.createUser("gsremoved");
    for (const user of [member, removed]) {
      await call(kith, "POST", `/api/v1/groups/${group.id}/invitations`, owner.token, { account_id: user.account.id });
      expect((await call(kith, "POST", `/api/v1/groups/${group.id}/join`, user.token)).status).toBe(200);
    }
    const outsiders = [await listen(undefined, group.id), await listen(stranger, group.id)];
    for (const socket of outsiders) expect(socket.messages.filter((message) => message.status === 404)).toHaveLength(1);
    const memberSocket = await listen(member, group.id);
    const removedSocket = await listen(removed, group.id);
    const first = await post(owner, { status: "first secret", group_id: group.id });
    await eventually(() => expect(updates(removedSocket, "group").map((update) => update.id)).toEqual([first]));
    expect((await call(kith, "DELETE", `/api/v1/groups/${group.id}/members/${removed.account.id}`, owner.token)).status).toBe(200);
    const second = await post(owner, { status: "second secret", group_id: group.id });
    await eventually(() => expect(updates(memberSocket, "group").map((update) => update.id)).toEqual([first, second]));
    // A public status after it: once each socket has it, the secret one would have come first.
    const marker = await post(owner, { status: "public marker", visibility: "public" });
    for (const socket of [...outsiders, removedSocket]) {
      await eventually(() => expect(updates(socket, "public").map((update) => update.id)).toContain(marker));
    }
    expect(updates(removedSocket, "group").map((update) => update.id)).toEqual([first]);
    for (const socket of outsiders) expect(updates(socket, "group")).toEqual([]);
    for (const socket of [...outsiders, memberSocket, removedSocket]) socket.ws.close();
  });

  it("refuses a subscription without a group, and server-sent events of a group the caller may not see", async () => {
    const socket = await openSocket(wsUrl(server), [member.token]);
    socket.send({ type: "subscribe", stream: "group" });
    await socket.settle();
    expect(socket.messages.filter((message) => message.status === 400 && message.error?.startsWith("Missing parameter"))).toHaveLength(1);
    socket.ws.close();
    const secret = await createGroup(kith, owner.token, { secret: true });
    const hidden = await kith.request("GET", `/api/v1/streaming?stream=group&group=${secret.id}`, { token: stranger.token });
    expect(hidden.status).toBe(404);
    const missing = await kith.request("GET", "/api/v1/streaming?stream=group", { token: stranger.token });
    expect(missing.status).toBe(400);
    await missing.body?.cancel();
    await hidden.body?.cancel();
  });
});
