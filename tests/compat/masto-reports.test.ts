/**
 * masto.js as a real client, over real HTTP: a user reports an account with
 * some of its statuses, and a moderator's client finds the report in the
 * admin API, assigns it to itself and resolves it.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { type NodeServer, startNodeServer } from "@kith/http-adapter-node";
import type { TestKith } from "@kith/core/testing";
import { createRestAPIClient } from "masto";
import { describeOnEngines } from "../support/engines.js";

describeOnEngines("masto.js reports", (engine) => {
  let kith: TestKith;
  let server: NodeServer;

  beforeAll(async () => {
    kith = await engine.testKith();
    server = await startNodeServer({ handler: (request, info) => kith.fetch(request, info) });
  });
  afterAll(async () => {
    await server?.close();
    await kith?.close();
  });

  it("reports an account with statuses; a moderator lists, assigns and resolves the report", async () => {
    const [reporter, target, moderator] = [
      await kith.createUser("masto_reporter"),
      await kith.createUser("masto_target"),
      await kith.createUser("masto_moderator", { role: "Moderator" }),
    ];
    const targetClient = createRestAPIClient({ url: server.url, accessToken: target.token });
    const status = await targetClient.v1.statuses.create({ status: "buy my stuff" });

    const client = createRestAPIClient({ url: server.url, accessToken: reporter.token });
    const report = await client.v1.reports.create({
      accountId: target.account.id,
      statusIds: [status.id],
      comment: "spam",
      category: "spam",
      forward: false,
    });
    expect(report).toMatchObject({ actionTaken: false, category: "spam", comment: "spam", statusIds: [status.id] });
    expect(report.targetAccount.id).toBe(target.account.id);

    const admin = createRestAPIClient({ url: server.url, accessToken: moderator.token });
    const listed = await admin.v1.admin.reports.list();
    const found = listed.find((entry) => entry.id === report.id);
    expect(found?.account.id).toBe(reporter.account.id);
    expect(found?.targetAccount.id).toBe(target.account.id);
    expect(found?.statuses.map((entry) => entry.id)).toEqual([status.id]);

    const assigned = await admin.v1.admin.reports.$select(report.id).assignToSelf();
    expect(assigned.assignedAccount?.id).toBe(moderator.account.id);
    const resolved = await admin.v1.admin.reports.$select(report.id).resolve();
    expect(resolved.actionTaken).toBe(true);
    expect(resolved.actionTakenByAccount.id).toBe(moderator.account.id);
    expect((await admin.v1.admin.reports.list()).map((entry) => entry.id)).not.toContain(report.id);
    expect((await admin.v1.admin.reports.list({ resolved: true })).map((entry) => entry.id)).toContain(report.id);
  });
});
