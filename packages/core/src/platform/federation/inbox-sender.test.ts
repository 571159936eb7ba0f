import { type Server, createServer } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { InboxSender } from "./inbox-sender.js";

describe("the inbox sender", () => {
  const servers: Server[] = [];
  const senders: InboxSender[] = [];

  afterEach(async () => {
    for (const sender of senders.splice(0)) sender.close();
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  function sender(options: ConstructorParameters<typeof InboxSender>[0]): InboxSender {
    const made = new InboxSender(options);
    senders.push(made);
    return made;
  }

  /** A server answering each POST with what `answer` does; it counts connections and the bodies it read. */
  async function serve(answer: (socketRequests: number, respond: (status: number) => void, socket: Socket) => void) {
    const seen = { connections: 0, bodies: [] as string[], headers: [] as Record<string, unknown>[] };
    const perSocket = new WeakMap<Socket, number>();
    const server = createServer((request, response) => {
      const count = (perSocket.get(request.socket) ?? 0) + 1;
      perSocket.set(request.socket, count);
      let body = "";
      request.on("data", (chunk: Buffer) => {
        body += chunk.toString();
      });
      request.on("end", () => {
        seen.bodies.push(body);
        seen.headers.push(request.headers);
        answer(count, (status) => response.writeHead(status).end(), request.socket);
      });
    });
    server.on("connection", () => seen.connections++);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return { url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/inbox`), seen };
  }

  const body = new TextEncoder().encode('{"type":"Create"}');

  it("POSTs the body with the given headers and answers the status, reusing its connection", async () => {
    const { url, seen } = await serve((_count, respond) => respond(202));
    const inboxes = sender({ allowPrivateAddress: true });
    expect(await inboxes.post(url, { "content-type": "application/activity+json", signature: "sig" }, body)).toBe(202);
    expect(await inboxes.post(url, { "content-type": "application/activity+json" }, body)).toBe(202);
    expect(seen.bodies).toEqual(['{"type":"Create"}', '{"type":"Create"}']);
    expect(seen.headers[0]).toMatchObject({ signature: "sig", "content-length": String(body.byteLength) });
    expect(seen.connections).toBe(1);
  });

  it("refuses non-public addresses unless allowed, by literal and by what a name resolves to", async () => {
    const { url, seen } = await serve((_count, respond) => respond(202));
    await expect(sender({}).post(url, {}, body)).rejects.toMatchObject({ reason: "private_address" });
    const named = new URL(url);
    named.hostname = "inbox.example";
    const resolving = sender({ lookup: async () => ["127.0.0.1"] });
    await expect(resolving.post(named, {}, body)).rejects.toMatchObject({ reason: "private_address" });
    expect(seen.bodies).toEqual([]);
  });

  it("sends again on a new connection when a pooled one turns out closed, and only then", async () => {
    // The second request on a connection finds it closed, as when a server's keep-alive ran out just before.
    const { url, seen } = await serve((count, respond, socket) => (count > 1 ? socket.destroy() : respond(202)));
    const inboxes = sender({ allowPrivateAddress: true });
    expect(await inboxes.post(url, {}, body)).toBe(202);
    expect(await inboxes.post(url, {}, body)).toBe(202);
    expect(seen.connections).toBe(2);
    expect(seen.bodies).toHaveLength(3);
    // A fresh connection that fails is not tried again.
    const { url: broken, seen: brokenSeen } = await serve((_count, _respond, socket) => socket.destroy());
    await expect(inboxes.post(broken, {}, body)).rejects.toThrow();
    expect(brokenSeen.bodies).toHaveLength(1);
  });

  it("gives up on a server that does not answer in time", async () => {
    const { url } = await serve(() => {});
    await expect(sender({ allowPrivateAddress: true, timeoutMs: 100 }).post(url, {}, body)).rejects.toMatchObject({ reason: "timeout" });
  });
});
