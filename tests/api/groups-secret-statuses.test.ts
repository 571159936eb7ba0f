/**
 * A secret group's statuses leak through none of the routes that read
 * statuses (the group's timeline, the status, its context and other parts, several by id, the author's statuses,
 * the home, public and hashtag timelines, search, notifications,
 * conversations, bookmarks, favourites, streaming) to a guest, a stranger who follows the author,
 * or a member removed from the group, though that member saw them while a
 * member, mentioned or not.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { eventually, type TestKith, type TestUser } from "@kith/core/testing";
import { type NodeServer, startNodeServer } from "@kith/http-adapter-node";
import { describeOnEngines } from "../support/engines.js";
import { call, createGroup } from "../support/groups.js";
import { openSocket, type StreamingSocket, wsUrl } from "../support/streaming-socket.js";

describeOnEngines("secret group statuses", (engine) => {
  let kith: TestKith;
  let server: NodeServer;
  let owner: TestUser;
  let member: TestUser;
  let removed: TestUser;
  let stranger: TestUser;
  let groupId: string;
  const word = `hush${Date.now().toString(36)}`;
  const secretIds: string[] = [];

  const post = async (user: TestUser, json: Record<string, unknown>): Promise<string> => {
    const posted = await call(kith, "POST", "/api/v1/statuses", user.token, json);
    expect(posted.status).toBe(200);
    return posted.body.id as string;
  };

  async function join(user: TestUser): Promise<void> {
    expect((await call(kith, "POST", `/api/v1/groups/${groupId}/invitations`, owner.token, { account_id: user.account.id })).status).toBe(200);
    expect((await call(kith, "POST", `/api/v1/groups/${groupId}/join`, user.token)).status).toBe(200);
  }

  /** Every id of a status (or a notification's, a conversation's last status) in an answer. */
  function idsIn(body: unknown): string[] {
    const found: string[] = [];
    const walk = (value: unknown): void => {
      if (Array.isArray(value)) for (const item of value) walk(item);
      else if (value && typeof value === "object") {
        const record = value as Record<string, unknown>;
        if (typeof record.id === "string") found.push(record.id);
        for (const inner of Object.values(record)) walk(inner);
      }
    };
    walk(body);
    return found;
  }

  /** What each read route shows the viewer; a status route answers 404 as for a status that does not exist. */
  async function expectNothingShown(viewer: TestUser | undefined): Promise<void> {
    const token = viewer?.token;
    for (const id of secretIds) {
      const one = await call(kith, "GET", `/api/v1/statuses/${id}`, token);
      expect(one.status).toBe(404);
      expect(one.body.code).toBe("status.not_found");
      for (const part of ["context", "favourited_by", "reblogged_by", "history", "source"]) {
        // The source is its author's only: a guest is asked to sign in first.
        const expected = part === "source" && token === undefined ? 401 : 404;
        expect((await call(kith, "GET", `/api/v1/statuses/${id}/${part}`, token)).status, part).toBe(expected);
      }
    }
    const timeline = await call(kith, "GET", `/api/v1/timelines/group/${groupId}`, token);
    expect(timeline.status).toBe(404);
    expect(timeline.body.code).toBe("group.not_found");
    const lists = [
      `/api/v1/statuses?${secretIds.map((id) => `id[]=${id}`).join("&")}`,
      `/api/v1/accounts/${owner.account.id}/statuses?limit=40`,
      `/api/v1/accounts/${member.account.id}/statuses?limit=40`,
      "/api/v1/timelines/public?limit=40",
      "/api/v1/timelines/public?local=true&limit=40",
      `/api/v1/timelines/tag/${word}?limit=40`,
      `/api/v2/search?q=${word}&type=statuses`,
    ];
    if (viewer) {
      lists.push(
        "/api/v1/timelines/home?limit=40",
        "/api/v1/notifications?limit=40",
        "/api/v1/conversations?limit=40",
        "/api/v1/bookmarks?limit=40",
        "/api/v1/favourites?limit=40",
        `/api/v2/search?q=${word}&type=statuses&resolve=true`,
      );
    }
    for (const path of lists) {
      const answer = await call(kith, "GET", path, token);
      expect(answer.status, path).toBe(200);
      expect(idsIn(answer.body).filter((id) => secretIds.includes(id)), path).toEqual([]);
    }
  }

  async function watch(user: TestUser | undefined): Promise<StreamingSocket> {
    const socket = await openSocket(wsUrl(server), user ? [user.token] : undefined);
    socket.send({ type: "subscribe", stream: "public" });
    socket.send({ type: "subscribe", stream: "public:local" });
    socket.send({ type: "subscribe", stream: "hashtag", tag: word });
    socket.send({ type: "subscribe", stream: "group", group: groupId });
    if (user) {
      socket.send({ type: "subscribe", stream: "user" });
      socket.send({ type: "subscribe", stream: "direct" });
    }
    await socket.settle();
    return socket;
  }

  const streamedIds = (socket: StreamingSocket): string[] =>
    socket.messages.filter((message) => message.payload?.startsWith("{")).flatMap((message) => idsIn(JSON.parse(message.payload ?? "{}")));

  beforeAll(async () => {
    kith = await engine.testKith();
    server = await startNodeServer({ handler: (request, info) => kith.fetch(request, info) });
    owner = await kith.createUser("ssowner");
    member = await kith.createUser("ssmember");
    removed = await kith.createUser("ssremoved");
    stranger = await kith.createUser("ssstranger");
    for (const follower of [stranger, member, removed]) {
      expect((await call(kith, "POST", `/api/v1/accounts/${owner.account.id}/follow`, follower.token)).status).toBe(200);
    }
    groupId = (await createGroup(kith, owner.token, { secret: true, join_mode: "INVITE_ONLY" })).id;
    await join(member);
    await join(removed);

    const root = await post(owner, { status: `#${word} for @${member.account.username} and @${removed.account.username}`, group_id: groupId });
    secretIds.push(root);
    secretIds.push(await post(member, { status: `#${word} a reply`, in_reply_to_id: root, visibility: "public" }));
    secretIds.push(await post(owner, { status: `#${word} plain ${word}`, visibility: "public", group_id: groupId }));
  });
  afterAll(async () => {
    await server.close();
    await kith.close();
  });

  it("shows the statuses to every member, mentioned or not", async () => {
    for (const viewer of [owner, member, removed]) {
      for (const id of secretIds) expect((await call(kith, "GET", `/api/v1/statuses/${id}`, viewer.token)).status).toBe(200);
      const context = await call(kith, "GET", `/api/v1/statuses/${secretIds[0]}/context`, viewer.token);
      expect(idsIn(context.body)).toContain(secretIds[1]);
      const timeline = await call(kith, "GET", `/api/v1/timelines/group/${groupId}`, viewer.token);
      expect(timeline.body.map((status: { id: string }) => status.id)).toEqual([...secretIds].reverse());
    }
    // What the removed member will have kept of them: a bookmark and a favourite.
    for (const action of ["bookmark", "favourite"]) {
      expect((await call(kith, "POST", `/api/v1/statuses/${secretIds[2]}/${action}`, removed.token)).status).toBe(200);
    }
    const notified = await call(kith, "GET", "/api/v1/notifications", removed.token);
    expect(idsIn(notified.body)).toContain(secretIds[0]);
  });

  it("shows nothing to a guest", async () => {
    await expectNothingShown(undefined);
  });

  it("shows nothing to a stranger who follows the author", async () => {
    await expectNothingShown(stranger);
  });

  it("shows nothing more to a member once removed", async () => {
    expect((await call(kith, "DELETE", `/api/v1/groups/${groupId}/members/${removed.account.id}`, owner.token)).status).toBe(200);
    await expectNothingShown(removed);
  });

  it("streams new statuses to none of them, while a mentioned member hears them", async () => {
    const sockets = await Promise.all([watch(undefined), watch(stranger), watch(removed)]);
    // The group's stream is refused to each of them as for a group that does not exist.
    for (const socket of sockets) expect(socket.messages.filter((message) => message.status === 404)).toHaveLength(1);
    const memberSocket = await watch(member);
    const fresh = await post(owner, { status: `#${word} fresh for @${member.account.username}`, visibility: "public", group_id: groupId });
    secretIds.push(fresh);
    await eventually(() => expect(streamedIds(memberSocket)).toContain(fresh));
    // A public status after it: once it is streamed, the secret one would have been too.
    const marker = await post(owner, { status: `#${word} public marker`, visibility: "public" });
    for (const socket of sockets) {
      await eventually(() => expect(streamedIds(socket)).toContain(marker));
      expect(streamedIds(socket).filter((id) => secretIds.includes(id))).toEqual([]);
    }
    for (const socket of [...sockets, memberSocket]) socket.ws.close();
    await expectNothingShown(stranger);
    await expectNothingShown(removed);
  });
});
