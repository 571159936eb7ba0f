/**
 * Mastodon's side of reports over the same data: a report filed in
 * Mastodon's form (`account_id`, `status_ids[]`, as a form or JSON) answers
 * Mastodon's Report entity, and Mastodon's admin report API lists, assigns,
 * resolves and reopens with Admin::Report entities; the paths it shares
 * with the spec's answer both sets of fields.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestKith, TestUser } from "@kith/core/testing";
import { describeOnEngines } from "../support/engines.js";
import { call, createGroup } from "../support/groups.js";
import { giveGrants } from "../support/roles.js";
import { type ForwardedReport, reportsModule } from "@kith/core";
import { remoteAccount } from "./relationships-support.js";

const ADMIN = "/api/v1/admin/reports";

describeOnEngines("reports in Mastodon's form", (engine) => {
  let kith: TestKith;
  let mod: TestUser;
  let reader: TestUser;
  let serial = 0;
  const fresh = () => kith.createUser(`rm${++serial}`);

  beforeAll(async () => {
    kith = await engine.testKith();
    mod = await kith.createUser("rm_mod", { role: "Moderator" });
    reader = await kith.createUser("rm_reader");
    await giveGrants(kith, reader.account.id, [{ resource: "Reports", access: ["Read"], scope: "global" }]);
  });
  afterAll(() => kith.close());

  const post = async (user: TestUser, status: string) => {
    const posted = await call(kith, "POST", "/api/v1/statuses", user.token, { status });
    expect(posted.status).toBe(200);
    return posted.body.id as string;
  };
  const formReport = async (user: TestUser, form: string) => {
    const response = await kith.request("POST", "/api/v1/reports", {
      token: user.token,
      body: form,
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    return { status: response.status, body: await response.json() };
  };

  describe("filing", () => {
    it("takes Mastodon's form, as a form, and answers Mastodon's Report entity", async () => {
      const [reporter, target] = [await fresh(), await fresh()];
      const [one, two] = [await post(target, "one"), await post(target, "two")];
      const form = `account_id=${target.account.id}&status_ids[]=${one}&status_ids[]=${two}&comment=spam+links&category=spam&forward=false`;
      const filed = await formReport(reporter, form);
      expect(filed.status).toBe(200);
      expect(filed.body).toEqual({
        id: expect.stringMatching(/^rp_/),
        action_taken: false,
        action_taken_at: null,
        category: "spam",
        comment: "spam links",
        forwarded: false,
        created_at: expect.any(String),
        status_ids: [one, two],
        rule_ids: [],
        target_account: expect.objectContaining({ id: target.account.id, username: target.account.username }),
      });
      // The same data as the spec's report on the account.
      const shown = await call(kith, "GET", `${ADMIN}/${filed.body.id}`, mod.token);
      expect(shown.body).toMatchObject({ targetType: "user", targetId: target.account.id, category: "spam" });
      expect(shown.body.comments[0]).toMatchObject({ comment: "spam links", statusIds: [one, two] });
    });

    it("takes it as JSON too, and merges into the account's open report", async () => {
      const [first, second, target] = [await fresh(), await fresh(), await fresh()];
      const one = await call(kith, "POST", "/api/v1/reports", first.token, { account_id: target.account.id, comment: "first" });
      const two = await call(kith, "POST", "/api/v1/reports", second.token, {
        account_id: target.account.id,
        comment: "second",
        rule_ids: [],
      });
      expect(two.status).toBe(200);
      expect(two.body).toMatchObject({ id: one.body.id, comment: "second", target_account: { id: target.account.id } });
    });

    it("refuses statuses that are not the reported account's, and an unknown category", async () => {
      const [reporter, target, other] = [await fresh(), await fresh(), await fresh()];
      const foreign = await post(other, "not theirs");
      const refused = await call(kith, "POST", "/api/v1/reports", reporter.token, { account_id: target.account.id, status_ids: [foreign] });
      expect(refused.status).toBe(422);
      expect(refused.body.code).toBe("report.statuses_invalid");
      const category = await call(kith, "POST", "/api/v1/reports", reporter.token, { account_id: target.account.id, category: "boring" });
      expect(category.status).toBe(422);
      const unknown = await call(kith, "POST", "/api/v1/reports", reporter.token, { account_id: "us_0000000000000000000000000a" });
      expect(unknown.status).toBe(404);
    });
  });

  describe("the admin API", () => {
    it("lists unresolved reports on accounts as Admin::Report, assigns to self, unassigns, resolves and reopens", async () => {
      const [reporter, target] = [await fresh(), await fresh()];
      const status = await post(target, "reported");
      const filed = await call(kith, "POST", "/api/v1/reports", reporter.token, {
        account_id: target.account.id,
        status_ids: [status],
        comment: "look",
      });
      // A report on a group has no Mastodon form and is not listed here.
      const group = await createGroup(kith, mod.token);
      await call(kith, "POST", "/api/v1/reports", reporter.token, { targetType: "group", targetId: group.id });

      const listed = await call(kith, "GET", ADMIN, reader.token);
      expect(listed.status).toBe(200);
      expect(listed.body.every((entry: { target_account: unknown }) => entry.target_account !== null)).toBe(true);
      const entry = listed.body.find((candidate: { id: string }) => candidate.id === filed.body.id);
      expect(entry).toMatchObject({
        action_taken: false,
        action_taken_at: null,
        category: "other",
        comment: "look",
        forwarded: false,
        account: { id: reporter.account.id, username: reporter.account.username, account: { id: reporter.account.id } },
        target_account: { id: target.account.id, account: { id: target.account.id } },
        assigned_account: null,
        action_taken_by_account: null,
        statuses: [expect.objectContaining({ id: status })],
        rules: [],
      });
      const byReporter = await call(kith, "GET", `${ADMIN}?account_id=${reporter.account.id}`, mod.token);
      expect(byReporter.body.map((r: { id: string }) => r.id)).toEqual([filed.body.id]);
      const byTarget = await call(kith, "GET", `${ADMIN}?target_account_id=${target.account.id}`, mod.token);
      expect(byTarget.body.map((r: { id: string }) => r.id)).toEqual([filed.body.id]);

      const mine = await call(kith, "POST", `${ADMIN}/${filed.body.id}/assign_to_self`, mod.token);
      expect(mine.status).toBe(200);
      expect(mine.body).toMatchObject({ state: "under_review", assigned_account: { id: mod.account.id } });
      expect((await call(kith, "POST", `${ADMIN}/${filed.body.id}/assign_to_self`, reader.token)).status).toBe(403);
      const unassigned = await call(kith, "POST", `${ADMIN}/${filed.body.id}/unassign`, mod.token);
      expect(unassigned.body).toMatchObject({ state: "open", assigned_account: null });

      const resolved = await call(kith, "POST", `${ADMIN}/${filed.body.id}/resolve`, mod.token);
      expect(resolved.body).toMatchObject({
        action_taken: true,
        action_taken_at: expect.any(String),
        action_taken_by_account: { id: mod.account.id },
        // The spec's fields beside Mastodon's.
        state: "resolved",
        actionTakenBy: { id: mod.account.id },
      });
      const unresolved = await call(kith, "GET", ADMIN, mod.token);
      expect(unresolved.body.map((r: { id: string }) => r.id)).not.toContain(filed.body.id);
      const resolvedList = await call(kith, "GET", `${ADMIN}?resolved=true`, mod.token);
      expect(resolvedList.body.map((r: { id: string }) => r.id)).toContain(filed.body.id);

      const reopened = await call(kith, "POST", `${ADMIN}/${filed.body.id}/reopen`, mod.token);
      expect(reopened.body).toMatchObject({ action_taken: false, action_taken_by_account: null, state: "open" });
      const one = await call(kith, "GET", `${ADMIN}/${filed.body.id}`, mod.token);
      expect(one.body).toMatchObject({
        id: filed.body.id,
        comment: "look",
        target_account: { id: target.account.id },
        comments: [{ comment: "look" }],
        notes: [],
      });
    });

    it("resolves the report an account action names with report_id, and only a report about that account", async () => {
      const admin = await kith.createUser(`rm_admin${++serial}`, { role: "Admin" });
      const [reporter, target, other] = [await fresh(), await fresh(), await fresh()];
      const filed = await call(kith, "POST", "/api/v1/reports", reporter.token, { account_id: target.account.id });
      const elsewhere = await call(kith, "POST", "/api/v1/reports", reporter.token, { account_id: other.account.id });
      const action = (json: Record<string, unknown>) =>
        call(kith, "POST", `/api/v1/admin/accounts/${target.account.id}/action`, admin.token, json);
      const refused = await action({ type: "silence", report_id: elsewhere.body.id });
      expect(refused.status).toBe(404);
      expect(refused.body.code).toBe("report.not_found");
      expect((await call(kith, "GET", `/api/v1/admin/accounts/${target.account.id}`, admin.token)).body.silenced).toBe(false);
      expect((await action({ type: "silence", report_id: filed.body.id })).status).toBe(200);
      const shown = await call(kith, "GET", `${ADMIN}/${filed.body.id}`, mod.token);
      expect(shown.body).toMatchObject({ state: "resolved", action_taken: true, action_taken_by_account: { id: admin.account.id } });
      expect((await call(kith, "GET", `${ADMIN}/${elsewhere.body.id}`, mod.token)).body.state).toBe("open");
    });

    it("changes a report's category and cited rules with PUT, refusing rules the server does not have", async () => {
      await kith.services.settings.update({
        rules: [
          { id: "r1", text: "No spam", hint: "" },
          { id: "r2", text: "Be kind", hint: "Assume good faith" },
        ],
      });
      const [reporter, target] = [await fresh(), await fresh()];
      const filed = await call(kith, "POST", "/api/v1/reports", reporter.token, {
        account_id: target.account.id,
        category: "violation",
        rule_ids: ["r2"],
      });
      expect(filed.status).toBe(200);
      expect((await call(kith, "GET", `${ADMIN}/${filed.body.id}`, mod.token)).body.rules).toEqual([
        { id: "r2", text: "Be kind", hint: "Assume good faith" },
      ]);
      const unknownAtFiling = await call(kith, "POST", "/api/v1/reports", reporter.token, {
        account_id: target.account.id,
        rule_ids: ["r9"],
      });
      expect(unknownAtFiling.status).toBe(422);
      expect(unknownAtFiling.body.code).toBe("report.rule_unknown");

      const put = (user: TestUser, json: Record<string, unknown>) => call(kith, "PUT", `${ADMIN}/${filed.body.id}`, user.token, json);
      const changed = await put(mod, { category: "spam", rule_ids: ["r1", "r2"] });
      expect(changed.status).toBe(200);
      expect(changed.body).toMatchObject({ category: "spam", state: "open", rules: [{ id: "r1" }, { id: "r2" }] });
      const onlyCategory = await put(mod, { category: "legal" });
      expect(onlyCategory.body).toMatchObject({ category: "legal", rules: [{ id: "r1" }, { id: "r2" }] });

      const unknown = await put(mod, { rule_ids: ["r1", "nope"] });
      expect(unknown.status).toBe(422);
      expect(unknown.body.code).toBe("report.rule_unknown");
      expect((await put(mod, { category: "nonsense" })).status).toBe(422);
      expect((await put(reader, { category: "spam" })).status).toBe(403);
      expect((await kith.request("PUT", `${ADMIN}/${filed.body.id}`, { body: "{}" })).status).toBe(401);
      expect((await call(kith, "PUT", `${ADMIN}/rp_0000000000000000000000000a`, mod.token, { category: "spam" })).status).toBe(404);
      expect((await call(kith, "GET", `${ADMIN}/${filed.body.id}`, mod.token)).body).toMatchObject({ category: "legal" });
      await kith.services.settings.update({ rules: [] });
    });

    it("pages the list with Link headers", async () => {
      for (let i = 0; i < 3; i++) {
        await call(kith, "POST", "/api/v1/reports", (await fresh()).token, { account_id: (await fresh()).account.id });
      }
      const response = await kith.request("GET", `${ADMIN}?limit=2`, { token: mod.token });
      const page = (await response.json()) as { id: string }[];
      expect(page).toHaveLength(2);
      expect(response.headers.get("link")).toContain(`max_id=${page[1]?.id}`);
      const next = await call(kith, "GET", `${ADMIN}?limit=2&max_id=${page[1]?.id}`, mod.token);
      expect(next.body[0].id < (page[1]?.id ?? "")).toBe(true);
    });
  });

  describe("what the federation uses", () => {
    it("files a report another server sent, its actor as the reporter, merged as any other", async () => {
      const target = await fresh();
      const status = await post(target, "reported from afar");
      const remote = await remoteAccount(kith, "moderation", "remote.example");
      const reports = kith.module(reportsModule).reports;
      const local = await call(kith, "POST", "/api/v1/reports", (await fresh()).token, { account_id: target.account.id });
      const flag = {
        reporterId: remote,
        targetAccountId: target.account.id,
        statusIds: [status],
        comment: "from there",
        uri: "https://remote.example/flags/1",
      };
      const received = await reports.receive(flag);
      expect(received).toMatchObject({ merged: true, report: { id: local.body.id } });
      const shown = await call(kith, "GET", `${ADMIN}/${local.body.id}`, mod.token);
      expect(shown.body.comments[1]).toMatchObject({
        account: { id: remote, acct: "moderation@remote.example" },
        comment: "from there",
        statusIds: [status],
      });

      // The same Flag delivered again, after the report was resolved, files nothing more.
      expect((await call(kith, "POST", `${ADMIN}/${local.body.id}/resolve`, mod.token)).status).toBe(200);
      expect(await reports.receive(flag)).toBeNull();
      const open = await call(kith, "GET", `${ADMIN}?target_account_id=${target.account.id}`, mod.token);
      expect(open.body).toEqual([]);
      const another = await reports.receive({ ...flag, uri: "https://remote.example/flags/2" });
      expect(another).toMatchObject({ merged: false });
    });

    it("hands a report asking to be forwarded to the forwarder, for an account of another server only", async () => {
      const sent: ForwardedReport[] = [];
      kith.module(reportsModule).reports.forwardWith(async (report) => {
        sent.push(report);
      });
      const reporter = await fresh();
      const remote = await remoteAccount(kith, "far", "remote.example");
      const forwarded = await call(kith, "POST", "/api/v1/reports", reporter.token, {
        account_id: remote,
        comment: "please",
        forward: true,
      });
      expect(forwarded.body).toMatchObject({ forwarded: true });
      expect(sent).toEqual([
        { reportId: forwarded.body.id, reporterId: reporter.account.id, targetAccountId: remote, statusIds: [], comment: "please" },
      ]);
      const local = await call(kith, "POST", "/api/v1/reports", reporter.token, { account_id: (await fresh()).account.id, forward: true });
      expect(local.body).toMatchObject({ forwarded: false });
      const unasked = await call(kith, "POST", "/api/v1/reports", (await fresh()).token, { account_id: remote });
      expect(unasked.body.forwarded).toBe(true);
      expect(sent).toHaveLength(1);

      // A forwarder that fails leaves the report filed here, not forwarded.
      kith.module(reportsModule).reports.forwardWith(async () => {
        throw new Error("unreachable server");
      });
      const failed = await call(kith, "POST", "/api/v1/reports", reporter.token, {
        account_id: await remoteAccount(kith, "gone", "remote.example"),
        forward: true,
      });
      expect(failed.status).toBe(200);
      expect(failed.body).toMatchObject({ forwarded: false });
    });
  });
});
