/** A cancelled event's notification reaches its attendees' streams at once, with the event it is about. */
import { afterAll, beforeAll, expect, it } from "vitest";
import { eventually, type TestKith, type TestUser } from "@kith/core/testing";
import { type NodeServer, startNodeServer } from "@kith/http-adapter-node";
import { openSocket, wsUrl } from "../support/streaming-socket.js";
import { describeOnEngines } from "../support/engines.js";
import { call } from "../support/groups.js";

describeOnEngines("event notifications on the streaming API", (engine) => {
  let kith: TestKith;
  let server: NodeServer;
  let organizer: TestUser;
  let attendee: TestUser;

  beforeAll(async () => {
    kith = await engine.testKith();
    server = await startNodeServer({ handler: (request, info) => kith.fetch(request, info) });
    organizer = await kith.createUser("evstreamorg");
    attendee = await kith.createUser("evstreamattendee");
  });
  afterAll(async () => {
    await server.close();
    await kith.close();
  });

  it("streams event.cancelled to an attendee, with the event marked cancelled", async () => {
    const made = await call(kith, "POST", "/api/v1/events", organizer.token, { title: "Streamed", startTime: "2030-01-01T10:00:00Z" });
    const eventId = (made.body as { id: string }).id;
    await call(kith, "POST", `/api/v1/events/${eventId}/join`, attendee.token);
    const socket = await openSocket(wsUrl(server), [attendee.token]);
    socket.send({ type: "subscribe", stream: "user:notification" });
    await socket.settle();
    expect((await call(kith, "POST", `/api/v1/events/${eventId}/cancel`, organizer.token)).status).toBe(200);
    await eventually(() =>
      expect(
        socket.messages.filter((message) => message.event === "notification").map((message) => JSON.parse(message.payload ?? "{}")),
      ).toMatchObject([{ type: "event.cancelled", account: { id: organizer.account.id }, event: { id: eventId, cancelled: true } }]),
    );
    socket.ws.close();
  });
});
