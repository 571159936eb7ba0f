import { describe, expect, it } from "vitest";
import { type EventPhase, type InviteRsvp, type PublicRsvp, eventLifecycle, inviteRsvp, publicRsvp } from "./rsvp.js";

const PUBLIC_STATES: readonly PublicRsvp[] = ["none", "attending", "interested"];
const INVITE_STATES: readonly InviteRsvp[] = ["none", "pending", "accepted", "tentative", "rejected"];

describe("public RSVP", () => {
  it("joins from any standing: none, interested, or attending again", () => {
    for (const from of PUBLIC_STATES) expect(publicRsvp("scheduled", from, "join")).toEqual({ ok: true, to: "attending" });
  });

  it("marks interest from any standing", () => {
    for (const from of PUBLIC_STATES) expect(publicRsvp("scheduled", from, "interested")).toEqual({ ok: true, to: "interested" });
  });

  it("leaves from attending or interested, and refuses to leave what it never joined", () => {
    expect(publicRsvp("scheduled", "attending", "leave")).toEqual({ ok: true, to: "none" });
    expect(publicRsvp("scheduled", "interested", "leave")).toEqual({ ok: true, to: "none" });
    expect(publicRsvp("scheduled", "none", "leave")).toEqual({ ok: false, code: "event.not_participating" });
  });

  it("takes nothing on a cancelled or deleted event", () => {
    for (const from of PUBLIC_STATES) {
      for (const action of ["join", "interested", "leave"] as const) {
        expect(publicRsvp("cancelled", from, action)).toEqual({ ok: false, code: "event.cancelled" });
        expect(publicRsvp("deleted", from, action)).toEqual({ ok: false, code: "event.deleted" });
      }
    }
  });
});

describe("invite-only RSVP", () => {
  it("invites someone not invited as pending, and leaves an existing standing as it is", () => {
    expect(inviteRsvp("scheduled", "none", "invite")).toEqual({ ok: true, to: "pending" });
    for (const from of INVITE_STATES.filter((state) => state !== "none")) {
      expect(inviteRsvp("scheduled", from, "invite")).toEqual({ ok: true, to: from });
    }
  });

  it("answers accept, maybe and reject from pending or an earlier answer", () => {
    for (const from of ["pending", "accepted", "tentative", "rejected"] as const) {
      expect(inviteRsvp("scheduled", from, "accept")).toEqual({ ok: true, to: "accepted" });
      expect(inviteRsvp("scheduled", from, "maybe")).toEqual({ ok: true, to: "tentative" });
      expect(inviteRsvp("scheduled", from, "reject")).toEqual({ ok: true, to: "rejected" });
    }
  });

  it("refuses an answer from someone never invited", () => {
    for (const action of ["accept", "maybe", "reject"] as const) {
      expect(inviteRsvp("scheduled", "none", action)).toEqual({ ok: false, code: "event.not_invited" });
    }
  });

  it("removes an invitation or an answer, in any phase, and refuses to remove someone absent", () => {
    for (const phase of ["scheduled", "cancelled", "deleted"] as const) {
      for (const from of INVITE_STATES.filter((state) => state !== "none")) {
        expect(inviteRsvp(phase, from, "remove")).toEqual({ ok: true, to: "none" });
      }
      expect(inviteRsvp(phase, "none", "remove")).toEqual({ ok: false, code: "event.attendee_not_found" });
    }
  });

  it("takes no answers and no invitations on a cancelled or deleted event", () => {
    for (const from of INVITE_STATES) {
      for (const action of ["accept", "maybe", "reject", "invite"] as const) {
        expect(inviteRsvp("cancelled", from, action)).toEqual({ ok: false, code: "event.cancelled" });
        expect(inviteRsvp("deleted", from, action)).toEqual({ ok: false, code: "event.deleted" });
      }
    }
  });
});

describe("event lifecycle", () => {
  const cases: readonly [EventPhase, "cancel" | "delete" | "edit", ReturnType<typeof eventLifecycle>][] = [
    ["scheduled", "cancel", { ok: true, to: "cancelled" }],
    ["cancelled", "cancel", { ok: false, code: "event.already_cancelled" }],
    ["deleted", "cancel", { ok: false, code: "event.deleted" }],
    ["scheduled", "delete", { ok: true, to: "deleted" }],
    ["cancelled", "delete", { ok: true, to: "deleted" }],
    ["deleted", "delete", { ok: false, code: "event.deleted" }],
    ["scheduled", "edit", { ok: true, to: "scheduled" }],
    ["cancelled", "edit", { ok: true, to: "cancelled" }],
    ["deleted", "edit", { ok: false, code: "event.deleted" }],
  ];
  it.each(cases)("from %s, %s gives %o", (phase, action, expected) => {
    expect(eventLifecycle(phase, action)).toEqual(expected);
  });
});
