/**
 * Reports between two Kith instances over real HTTP: a report asking to be
 * forwarded reaches the reported account's server as a Flag from the
 * reporter's instance, and is filed there as a report like any other (the
 * reporter is the instance, never the user); a report on a group is never
 * forwarded.
 */
import { afterAll, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";
import { type KithPair, eventually, startKithPair } from "../support/federation-pair.js";

interface AdminReport {
  id: string;
  targetType: string;
  targetId: string;
  comments: { account: { acct: string } | null; comment: string; statusIds: string[] }[];
}

describeOnEngines("report forwarding between two instances", { timeout: 60_000 }, (engine) => {
  let pair: KithPair | undefined;
  afterAll(async () => {
    await pair?.close();
  });

  it("forwards a report on a remote account as a Flag, filed there as a report from the instance; never a group's", async () => {
    pair = await startKithPair(engine);
    const { a, b } = pair;
    const [alice, carol, bob, mod] = await Promise.all([
      a.kith.createUser("alice"),
      a.kith.createUser("carol"),
      b.kith.createUser("bob"),
      b.kith.createUser("mod", { role: "Moderator" }),
    ]);
    const posted = await b.kith.request("POST", "/api/v1/statuses", {
      token: bob.token,
      json: { status: "spam spam", visibility: "public" },
    });
    const bobStatus = (await posted.json()) as { id: string; uri: string };

    const resolve = async (q: string, type: "accounts" | "statuses") => {
      const found = await a.kith.request("GET", `/api/v2/search?q=${encodeURIComponent(q)}&resolve=true&type=${type}`, {
        token: alice.token,
      });
      return ((await found.json()) as Record<string, { id: string }[]>)[type]?.[0]?.id ?? expect.unreachable(`${q} resolved`);
    };
    const bobOnA = await resolve(`@bob@${b.host}`, "accounts");
    const statusOnA = await resolve(bobStatus.uri, "statuses");

    const filed = await a.kith.request("POST", "/api/v1/reports", {
      token: alice.token,
      json: { account_id: bobOnA, status_ids: [statusOnA], comment: "spam from bob", forward: true },
    });
    expect(filed.status).toBe(200);

    const list = async () =>
      (await (await b.kith.request("GET", "/api/v1/admin/reports/list", { token: mod.token })).json()) as AdminReport[];
    const [received] = await eventually(list, (reports) => reports.length === 1);
    const full = (await (await b.kith.request("GET", `/api/v1/admin/reports/${received?.id}`, { token: mod.token })).json()) as AdminReport;
    expect(full).toMatchObject({ targetType: "user", targetId: bob.account.id });
    expect(full.comments).toHaveLength(1);
    expect(full.comments[0]).toMatchObject({ comment: "spam from bob", statusIds: [bobStatus.id] });
    // The instance reported, not its user.
    expect(full.comments[0]?.account?.acct).not.toContain("alice");
    expect(full.comments[0]?.account?.acct).toContain(a.host);

    // A group is this server's own: its report stays here, whatever `forward` says.
    const group = await a.kith.request("POST", "/api/v1/groups", { token: alice.token, json: { name: "spamgroup", display_name: "Spam" } });
    const groupId = ((await group.json()) as { id: string }).id;
    const groupReport = await a.kith.request("POST", "/api/v1/reports", {
      token: carol.token,
      json: { targetType: "group", targetId: groupId, comment: "a spam group", forward: true },
    });
    expect(groupReport.status).toBe(200);
    // A forwarded report would have arrived as fast as the first one did.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await list()).toHaveLength(1);
  });
});
