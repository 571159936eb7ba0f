import { describe, expect, it } from "vitest";
import { REPORT_STATES, type ReportStanding, type ReportState, transition } from "./report-transitions.js";

const AT = "2026-03-01T10:00:00.000Z";

function standing(state: ReportState, extra: Partial<ReportStanding> = {}): ReportStanding {
  const handled = state === "resolved" || state === "dismissed";
  return {
    state,
    assignedAccountId: state === "under_review" ? "us_mod" : null,
    actionTakenById: handled ? "us_mod" : null,
    actionTakenAt: handled ? AT : null,
    ...extra,
  };
}

describe("report transitions", () => {
  it("assigns an open report to a user: under review, with the assignee", () => {
    expect(transition(standing("open"), { kind: "assign", assigneeId: "us_a" })).toEqual({
      ok: true,
      standing: { state: "under_review", assignedAccountId: "us_a", actionTakenById: null, actionTakenAt: null },
    });
  });

  it("hands a report under review over to another moderator", () => {
    const outcome = transition(standing("under_review"), { kind: "assign", assigneeId: "us_b" });
    expect(outcome).toMatchObject({ ok: true, standing: { state: "under_review", assignedAccountId: "us_b" } });
  });

  it("takes the assignment away with assign(null) and with unassign: under review becomes open", () => {
    for (const trigger of [{ kind: "assign", assigneeId: null } as const, { kind: "unassign" } as const]) {
      expect(transition(standing("under_review"), trigger)).toEqual({
        ok: true,
        standing: { state: "open", assignedAccountId: null, actionTakenById: null, actionTakenAt: null },
      });
    }
  });

  it("unassigns an open report as a no-op, and a closed one keeping its state", () => {
    expect(transition(standing("open"), { kind: "unassign" })).toEqual({ ok: true, standing: standing("open") });
    const closed = standing("resolved", { assignedAccountId: "us_a" });
    expect(transition(closed, { kind: "unassign" })).toEqual({ ok: true, standing: { ...closed, assignedAccountId: null } });
  });

  it.each(REPORT_STATES)("resolves and dismisses from %s, recording the caller and the time", (state) => {
    const later = "2026-03-02T10:00:00.000Z";
    expect(transition(standing(state), { kind: "resolve", actorId: "us_r", at: later })).toMatchObject({
      ok: true,
      standing: { state: "resolved", actionTakenById: "us_r", actionTakenAt: later },
    });
    expect(transition(standing(state), { kind: "dismiss", actorId: "us_d", at: later })).toMatchObject({
      ok: true,
      standing: { state: "dismissed", actionTakenById: "us_d", actionTakenAt: later },
    });
  });

  it.each(["resolved", "dismissed"] as const)("reopens a %s report, clearing assignment and action fields", (state) => {
    expect(transition(standing(state, { assignedAccountId: "us_a" }), { kind: "reopen" })).toEqual({
      ok: true,
      standing: { state: "open", assignedAccountId: null, actionTakenById: null, actionTakenAt: null },
    });
  });

  it.each(["open", "under_review"] as const)("refuses to reopen a %s report", (state) => {
    expect(transition(standing(state), { kind: "reopen" })).toEqual({ ok: false, refusal: "report.not_closed" });
  });

  it.each(["resolved", "dismissed"] as const)("refuses to assign a user to a %s report", (state) => {
    expect(transition(standing(state), { kind: "assign", assigneeId: "us_a" })).toEqual({ ok: false, refusal: "report.assign_closed" });
  });
});
