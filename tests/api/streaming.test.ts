/**
 * Mastodon's streaming API against a real server: WebSocket sessions (the
 * runtime's own WebSocket client) and server-sent events through fetch.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { eventually, type TestKith, type TestUser } from "@kith/core/testing";
import { type NodeServer, startNodeServer } from "@kith/http-adapter-node";
import { type StreamingSocket as Socket, openSocket, wsUrl } from "../support/streaming-socket.js";
import { describeOnEngines } from "../support/engines.js";

function events(socket: Socket, event: string): { stream: string[]; payload: string }[] {
  return socket.messages.filter((m) => m.event === event) as { stream: string[]; payload: string }[];
}

/** Reads an event stream until `until` holds for the text so far. */
async function readEventStream(response: Response, until: (text: string) => boolean): Promise<string> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  const deadline = Date.now() + 5_000;
  while (!until(text)) {
    if (Date.now() > deadline) throw new Error(`Timed out; got ${JSON.stringify(text)}`);
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel();
  return text;
}

describeOnEngines("streaming", (engine) => {
  let kith: TestKith;
  let server: NodeServer;
  let alice: TestUser;
  let bob: TestUser;

  async function post(user: TestUser, status: string, visibility = "public"): Promise<{ id: string }> {
    const response = await kith.request("POST", "/api/v1/statuses", { token: user.token, json: { status, visibility } });
    expect(response.status).toBe(200);
    return response.json();
  }

  beforeAll(async () => {
    kith = await engine.testKith();
    server = await startNodeServer({ handler: (request, info) => kith.fetch(request, info) });
    alice = await kith.createUser("streamalice");
    bob = await kith.createUser("streambob");
  });
  afterAll(async () => {
    await server.close();
    await kith.close();
  });

  it("answers the health check", async () => {
    const response = await fetch(`${server.url}/api/v1/streaming/health`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("OK");
  });

  it("streams public posts to a guest WebSocket, and their deletion, but not private posts", async () => {
    const socket = await openSocket(wsUrl(server));
    socket.send({ type: "subscribe", stream: "public" });
    await socket.settle();
    await post(bob, "private words", "private");
    const shown = await post(bob, "hello public world");
    await eventually(() => expect(events(socket, "update")).toHaveLength(1));
    const [update] = events(socket, "update");
    expect(update?.stream).toEqual(["public"]);
    expect(JSON.parse(update?.payload ?? "{}")).toMatchObject({ id: shown.id, visibility: "public" });
    expect((await kith.request("DELETE", `/api/v1/statuses/${shown.id}`, { token: bob.token })).status).toBe(200);
    await eventually(() => expect(events(socket, "delete")).toEqual([{ stream: ["public"], event: "delete", payload: shown.id }]));
    expect(events(socket, "update")).toHaveLength(1);
    socket.ws.close();
  });

  it("takes the token from the subprotocol and streams the user's home, notifications and filter changes", async () => {
    const socket = await openSocket(wsUrl(server), [alice.token]);
    expect(socket.ws.protocol).toBe(alice.token);
    socket.send({ type: "subscribe", stream: "user" });
    socket.send({ type: "subscribe", stream: "user:notification" });
    await socket.settle();
    const own = await post(alice, "my own post");
    await eventually(() => expect(events(socket, "update").map((e) => JSON.parse(e.payload).id)).toContain(own.id));
    expect((await kith.request("POST", `/api/v1/statuses/${own.id}/favourite`, { token: bob.token })).status).toBe(200);
    await eventually(() =>
      expect(
        events(socket, "notification")
          .map((e) => e.stream[0])
          .sort(),
      ).toEqual(["user", "user:notification"]),
    );
    expect(JSON.parse(events(socket, "notification")[0]?.payload ?? "{}")).toMatchObject({
      type: "favourite",
      account: { id: bob.account.id },
    });
    const created = await kith.request("POST", "/api/v2/filters", { token: alice.token, json: { title: "x", context: ["home"] } });
    expect(created.status).toBe(200);
    await eventually(() => expect(events(socket, "filters_changed")).toEqual([{ stream: ["user"], event: "filters_changed" }]));
    socket.ws.close();
  });

  it("applies the viewer's filters, blocks and mutes to what it streams", async () => {
    const carol = await kith.createUser("streamcarol");
    const dave = await kith.createUser("streamdave");
    const filter = { context: ["public"], keywords_attributes: [{ keyword: "spoiler" }] };
    await kith.request("POST", "/api/v2/filters", { token: carol.token, json: { ...filter, title: "hide", filter_action: "hide" } });
    await kith.request("POST", "/api/v2/filters", {
      token: carol.token,
      json: { title: "warn", context: ["public"], filter_action: "warn", keywords_attributes: [{ keyword: "plot" }] },
    });
    await kith.storage.db
      .insertInto("blocks")
      .values({
        id: kith.ids.next("block"),
        account_id: carol.account.id,
        target_account_id: dave.account.id,
        created_at: kith.clock.now().toISOString(),
      })
      .execute();
    const socket = await openSocket(wsUrl(server, `?access_token=${carol.token}`));
    socket.send({ type: "subscribe", stream: "public:local" });
    await socket.settle();
    await post(bob, "big spoiler here");
    await post(dave, "from someone blocked");
    const warned = await post(bob, "a plot twist");
    const plain = await post(bob, "plain words");
    await eventually(() => expect(events(socket, "update").map((e) => JSON.parse(e.payload).id)).toContain(plain.id));
    const received = events(socket, "update").map(
      (e) => JSON.parse(e.payload) as { id: string; filtered?: { filter: { title: string } }[] },
    );
    expect(received.map((s) => s.id)).toEqual([warned.id, plain.id]);
    expect(received[0]?.filtered?.map((f) => f.filter.title)).toEqual(["warn"]);
    socket.ws.close();
  });

  it("renders a message for each viewer, once for all of a viewer's connections: marks and filters stay the viewer's own", async () => {
    const erin = await kith.createUser("streamerin");
    const frank = await kith.createUser("streamfrank");
    await kith.request("POST", "/api/v2/filters", {
      token: frank.token,
      json: { title: "hide", context: ["public"], filter_action: "hide", keywords_attributes: [{ keyword: "secret" }] },
    });
    const sockets = await Promise.all(
      [erin, erin, frank, frank].map((viewer) => openSocket(wsUrl(server, `?access_token=${viewer.token}`))),
    );
    const guest = await openSocket(wsUrl(server));
    // Blocked by the author: the shared rendering must not reach her.
    const gina = await kith.createUser("streamgina");
    await kith.storage.db
      .insertInto("blocks")
      .values({ id: kith.ids.next("block"), account_id: bob.account.id, target_account_id: gina.account.id, created_at: kith.clock.now().toISOString() })
      .execute();
    const blocked = await openSocket(wsUrl(server, `?access_token=${gina.token}`));
    for (const socket of [...sockets, guest, blocked]) {
      socket.send({ type: "subscribe", stream: "public" });
      await socket.settle();
    }
    const [erinA, erinB, frankA, frankB] = sockets as [Socket, Socket, Socket, Socket];
    const shown = await post(bob, "open words");
    expect((await kith.request("POST", `/api/v1/statuses/${shown.id}/favourite`, { token: erin.token })).status).toBe(200);
    const edited = await kith.request("PUT", `/api/v1/statuses/${shown.id}`, { token: bob.token, json: { status: "open words, edited" } });
    expect(edited.status).toBe(200);
    for (const socket of [...sockets, guest]) await eventually(() => expect(events(socket, "status.update")).toHaveLength(1));
    // The rendering shared by viewers who did nothing to the post is what the REST API shows each of them.
    for (const [viewer, socket] of [
      [frank, frankA],
      [erin, erinA],
    ] as const) {
      const rest = await kith.request("GET", `/api/v1/statuses/${shown.id}`, { token: viewer.token });
      expect(JSON.parse(events(socket, "status.update")[0]?.payload ?? "{}")).toEqual(await rest.json());
    }
    const secret = await post(bob, "secret plans");
    for (const socket of [erinA, erinB, guest]) {
      await eventually(() => expect(events(socket, "update").map((e) => JSON.parse(e.payload).id)).toEqual([shown.id, secret.id]));
    }
    await post(bob, "a barrier");
    await eventually(() => expect(events(frankB, "update")).toHaveLength(2));
    const favourited = (socket: Socket) => events(socket, "status.update").map((e) => JSON.parse(e.payload).favourited);
    expect(favourited(erinA)).toEqual([true]);
    expect(favourited(erinB)).toEqual([true]);
    expect(favourited(frankA)).toEqual([false]);
    expect(favourited(frankB)).toEqual([false]);
    expect(favourited(guest)).toEqual([undefined]);
    for (const socket of [frankA, frankB]) expect(events(socket, "update").map((e) => JSON.parse(e.payload).id)).not.toContain(secret.id);
    expect([...events(blocked, "update"), ...events(blocked, "status.update")]).toEqual([]);
    for (const socket of [...sockets, guest, blocked]) socket.ws.close();
  });

  it("streams hashtags, and refuses unknown streams, missing parameters and user streams without a token", async () => {
    const socket = await openSocket(wsUrl(server));
    socket.send({ type: "subscribe", stream: "hashtag", tag: "Cats" });
    socket.send({ type: "subscribe", stream: "hashtag" });
    socket.send({ type: "subscribe", stream: "user" });
    socket.send({ type: "subscribe", stream: "nonsense" });
    socket.send("not json");
    await socket.settle();
    expect(socket.messages.filter((m) => m.error).map((m) => m.status)).toEqual(expect.arrayContaining([400, 401]));
    expect(socket.messages.filter((m) => m.status === 401)).toHaveLength(1);
    const tagged = await post(bob, "look #cats");
    await post(bob, "no tag here");
    await eventually(() => expect(events(socket, "update")).toHaveLength(1));
    expect(events(socket, "update")[0]?.stream).toEqual(["hashtag", "Cats"]);
    expect(JSON.parse(events(socket, "update")[0]?.payload ?? "{}").id).toBe(tagged.id);
    socket.send({ type: "unsubscribe", stream: "hashtag", tag: "cats" });
    await socket.settle();
    await post(bob, "more #cats");
    await post(bob, "and a barrier");
    expect(events(socket, "update")).toHaveLength(1);
    socket.ws.close();
  });

  it("streams edits as status.update, and direct conversations", async () => {
    const socket = await openSocket(wsUrl(server), [alice.token]);
    socket.send({ type: "subscribe", stream: "public" });
    socket.send({ type: "subscribe", stream: "direct" });
    await socket.settle();
    const shown = await post(bob, "first words");
    const edited = await kith.request("PUT", `/api/v1/statuses/${shown.id}`, { token: bob.token, json: { status: "second words" } });
    expect(edited.status).toBe(200);
    await eventually(() => expect(events(socket, "status.update")).toHaveLength(1));
    expect(JSON.parse(events(socket, "status.update")[0]?.payload ?? "{}")).toMatchObject({
      id: shown.id,
      content: expect.stringContaining("second"),
    });
    await post(bob, "@streamalice just between us", "direct");
    await eventually(() => expect(events(socket, "conversation")).toHaveLength(1));
    expect(events(socket, "conversation")[0]?.stream).toEqual(["direct"]);
    expect(JSON.parse(events(socket, "conversation")[0]?.payload ?? "{}")).toMatchObject({
      accounts: [expect.objectContaining({ id: bob.account.id })],
    });
    socket.ws.close();
  });

  it("caps the streams of one connection", async () => {
    const socket = await openSocket(wsUrl(server));
    for (let i = 0; i <= 100; i++) socket.send({ type: "subscribe", stream: "hashtag", tag: `tag${i}` });
    await socket.settle();
    expect(socket.messages.filter((m) => m.error === "Too many streams on one connection")).toHaveLength(1);
    expect(kith.services.streaming.webSocketSubscriptions).toBeGreaterThanOrEqual(100);
    socket.ws.close();
  });

  it("subscribes from the URL and refuses a bad token at the handshake", async () => {
    const socket = await openSocket(wsUrl(server, "?stream=public"));
    await socket.settle();
    const shown = await post(bob, "seen through the url stream");
    await eventually(() => expect(events(socket, "update").map((e) => JSON.parse(e.payload).id)).toContain(shown.id));
    socket.ws.close();
    await expect(openSocket(wsUrl(server, "?access_token=nonsense"))).rejects.toThrow();
    const plain = await fetch(`${server.url}/api/v1/streaming`);
    expect(plain.status).toBe(400);
  });

  it("serves server-sent events", async () => {
    const response = await fetch(`${server.url}/api/v1/streaming/public`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const shown = await post(bob, "for the event stream");
    const text = await readEventStream(response, (t) => t.includes(shown.id));
    expect(text.startsWith(":)\n\n")).toBe(true);
    const frame = text.split("\n\n").find((f) => f.startsWith("event: update"));
    expect(JSON.parse(frame?.split("\ndata: ")[1] ?? "{}")).toMatchObject({ id: shown.id });

    const user = await fetch(`${server.url}/api/v1/streaming/user`, { headers: { authorization: `Bearer ${alice.token}` } });
    expect(user.status).toBe(200);
    const own = await post(alice, "my home");
    expect(await readEventStream(user, (t) => t.includes(own.id))).toContain("event: update");
  });

  it("refuses server-sent events without a token, a parameter or a list of one's own", async () => {
    expect((await fetch(`${server.url}/api/v1/streaming/user`)).status).toBe(401);
    expect((await fetch(`${server.url}/api/v1/streaming/user/notification`)).status).toBe(401);
    expect((await fetch(`${server.url}/api/v1/streaming/direct`)).status).toBe(401);
    expect((await fetch(`${server.url}/api/v1/streaming/hashtag`)).status).toBe(400);
    const list = await fetch(`${server.url}/api/v1/streaming/list?list=li_nothing`, {
      headers: { authorization: `Bearer ${alice.token}` },
    });
    expect(list.status).toBe(404);
    await list.body?.cancel();
  });

  it("closes WebSockets with 1001 when the server shuts down", async () => {
    const own = await engine.testKith();
    const ownServer = await startNodeServer({ handler: (request, info) => own.fetch(request, info) });
    const socket = await openSocket(wsUrl(ownServer, "?stream=public"));
    await socket.settle();
    await ownServer.close();
    expect((await socket.closed).code).toBe(1001);
    await own.close();
  });
});
