/** Group notifications reach their recipients' streams at once, with the group they are about. */
import { afterAll, beforeAll, expect, it } from "vitest";
import { eventually, type TestKith, type TestUser } from "@kith/core/testing";
import { type NodeServer, startNodeServer } from "@kith/http-adapter-node";
import { openSocket, wsUrl } from "../support/streaming-socket.js";
import { describeOnEngines } from "../support/engines.js";
import { call, createGroup } from "../support/groups.js";

describeOnEngines("group notifications on the streaming API", (engine) => {
  let kith: TestKith;
  let server: NodeServer;
  let owner: TestUser;
  let applicant: TestUser;

  beforeAll(async () => {
    kith = await engine.testKith();
    server = await startNodeServer({ handler: (request, info) => kith.fetch(request, info) });
    owner = await kith.createUser("streamowner");
    applicant = await kith.createUser("streamapplicant");
  });
  afterAll(async () => {
    await server.close();
    await kith.close();
  });

  it("streams a join request to the managers and the decision to the requester", async () => {
    const group = await createGroup(kith, owner.token, { join_mode: "APPROVAL" });
    const managerSocket = await openSocket(wsUrl(server), [owner.token]);
    const applicantSocket = await openSocket(wsUrl(server), [applicant.token]);
    for (const socket of [managerSocket, applicantSocket]) {
      socket.send({ type: "subscribe", stream: "user:notification" });
      await socket.settle();
    }
    const notifications = (socket: typeof managerSocket) =>
      socket.messages.filter((message) => message.event === "notification").map((message) => JSON.parse(message.payload ?? "{}"));

    expect((await call(kith, "POST", `/api/v1/groups/${group.id}/join`, applicant.token)).status).toBe(200);
    await eventually(() =>
      expect(notifications(managerSocket)).toMatchObject([
        { type: "group.join_request", account: { id: applicant.account.id }, group: { id: group.id, name: group.name } },
      ]),
    );
    const [request] = (await call(kith, "GET", `/api/v1/groups/${group.id}/join_requests`, owner.token)).body;
    await call(kith, "POST", `/api/v1/groups/${group.id}/join_requests/${request.id}/approve`, owner.token);
    await eventually(() =>
      expect(notifications(applicantSocket)).toMatchObject([
        { type: "group.join_approved", account: { id: owner.account.id }, group: { id: group.id, membership: { member: true } } },
      ]),
    );
    managerSocket.ws.close();
    applicantSocket.ws.close();
  });
});
