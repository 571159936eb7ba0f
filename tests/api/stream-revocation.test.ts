/**
 * Streams live as long as the right that opened them: a WebSocket or event
 * stream opened with a token ends the moment its session is revoked, its
 * password changes, or its account is suspended or disabled, so that nothing
 * more (followers-only posts, direct messages) reaches it.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { eventually, type TestKith, type TestUser } from "@kith/core/testing";
import { type NodeServer, startNodeServer } from "@kith/http-adapter-node";
import { type StreamingSocket, openSocket, wsUrl } from "../support/streaming-socket.js";
import { describeOnEngines } from "../support/engines.js";

/** The user stream with a token (in the subprotocol), the public one without. */
function openUserSocket(server: NodeServer, token: string | null): Promise<StreamingSocket> {
  return openSocket(wsUrl(server, `?stream=${token ? "user" : "public"}`), token ? [token] : []);
}

/** Whether the socket was sent an event whose payload names `text`. */
function heard(socket: StreamingSocket, text: string): boolean {
  return socket.messages.some((message) => message.error === undefined && (message.payload ?? "").includes(text));
}

/** An event stream of the user's home; `ended` resolves with everything it sent once the server ends it. */
async function openEventStream(server: NodeServer, token: string): Promise<{ ended: Promise<string> }> {
  const response = await fetch(`${server.url}/api/v1/streaming/user`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const ended = (async () => {
    let text = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return text;
      text += decoder.decode(value, { stream: true });
    }
  })();
  return { ended };
}

describeOnEngines("streams end with the right that opened them", (engine) => {
  let kith: TestKith;
  let server: NodeServer;
  let admin: TestUser;
  let serial = 0;
  const freshUser = () => kith.createUser(`holder${++serial}`);

  beforeAll(async () => {
    kith = await engine.testKith();
    server = await startNodeServer({ handler: (request, info) => kith.fetch(request, info) });
    admin = await kith.createUser("streamadmin", { role: "Admin" });
  });
  afterAll(async () => {
    await server.close();
    await kith.close();
  });

  async function post(user: TestUser, status: string, visibility = "public"): Promise<string> {
    const response = await kith.request("POST", "/api/v1/statuses", { token: user.token, json: { status, visibility } });
    expect(response.status).toBe(200);
    return ((await response.json()) as { id: string }).id;
  }

  it.each(["suspend", "disable"])("an admin's %s closes the account's WebSocket and event streams at once", async (type) => {
    const user = await freshUser();
    const socket = await openUserSocket(server, user.token);
    await socket.settle();
    const stream = await openEventStream(server, user.token);
    const response = await kith.request("POST", `/api/v1/admin/accounts/${user.account.id}/action`, { token: admin.token, json: { type } });
    expect(response.status).toBe(200);
    expect((await socket.closed).code).toBe(1008);
    expect(await stream.ended).toMatch(/^:\)/);
  });

  it("revoking a session closes that session's streams and no other", async () => {
    const user = await freshUser();
    const other = await kith.services.sessions.issue({ accountId: user.account.id, scopes: ["read", "write"] });
    const kept = await openUserSocket(server, user.token);
    const revoked = await openUserSocket(server, other.accessToken);
    const guest = await openUserSocket(server, null);
    await Promise.all([kept.settle(), revoked.settle(), guest.settle()]);
    const response = await kith.request("DELETE", `/api/v1/sessions/${other.sessionId}`, { token: user.token });
    expect(response.status).toBe(200);
    expect((await revoked.closed).code).toBe(1008);
    // The other session and the guest keep streaming.
    const id = await post(user, "still heard", "private");
    await eventually(() => expect(heard(kept, id)).toBe(true));
    const shown = await post(user, "public, still heard");
    await eventually(() => expect(heard(guest, shown)).toBe(true));
    expect(kept.ws.readyState).toBe(WebSocket.OPEN);
    kept.ws.close();
    guest.ws.close();
  });

  it("a password set by an admin closes every stream of the account", async () => {
    const user = await freshUser();
    const socket = await openUserSocket(server, user.token);
    await socket.settle();
    const stream = await openEventStream(server, user.token);
    const response = await kith.request("POST", `/api/v1/admin/accounts/${user.account.id}/password`, {
      token: admin.token,
      json: { password: "a brand new password" },
    });
    expect(response.status).toBe(200);
    expect((await socket.closed).code).toBe(1008);
    await stream.ended;
  });

  it("a follower suspended with its stream open hears no more of followers-only posts", async () => {
    const author = await freshUser();
    const follower = await freshUser();
    expect((await kith.request("POST", `/api/v1/accounts/${author.account.id}/follow`, { token: follower.token })).status).toBe(200);
    const socket = await openUserSocket(server, follower.token);
    await socket.settle();
    const before = await post(author, "for my followers", "private");
    await eventually(() => expect(heard(socket, before)).toBe(true));
    await kith.request("POST", `/api/v1/admin/accounts/${follower.account.id}/action`, { token: admin.token, json: { type: "suspend" } });
    expect((await socket.closed).code).toBe(1008);
    const after = await post(author, "after the suspension", "private");
    expect(heard(socket, after)).toBe(false);
  });
});
