import type { eventErrors } from "./event-codes.js";

/** A code of the events module's refusals. */
export type ErrorCodeOf = keyof typeof eventErrors;

/** An account's standing on a public event; `none` has no row. */
export type PublicRsvp = "none" | "attending" | "interested";
/** What an account does to its standing on a public event. */
export type PublicRsvpAction = "join" | "interested" | "leave";

/** An account's standing on an invite-only event; `none` has no row, `pending` waits for an answer. */
export type InviteRsvp = "none" | "pending" | "accepted" | "tentative" | "rejected";
/** The invitee answers; the organizer invites or removes. */
export type InviteRsvpAction = "accept" | "maybe" | "reject" | "invite" | "remove";

/** Where an event is in its life: only a scheduled one takes responses. */
export type EventPhase = "scheduled" | "cancelled" | "deleted";

/** The next state, or the code of the refusal. */
export type Transition<S> = { readonly ok: true; readonly to: S } | { readonly ok: false; readonly code: ErrorCodeOf };

const to = <S>(state: S): Transition<S> => ({ ok: true, to: state });
const refuse = <S>(code: ErrorCodeOf): Transition<S> => ({ ok: false, code });

function closed(phase: EventPhase): ErrorCodeOf | null {
  if (phase === "cancelled") return "event.cancelled";
  if (phase === "deleted") return "event.deleted";
  return null;
}

/**
 * Public events (the spec's table): join and interested from any standing
 * (switching between them, or repeating one, is allowed); leave
 * (`joinOrInterested` DELETE) only from attending or interested. A cancelled
 * or deleted event takes nothing.
 */
export function publicRsvp(phase: EventPhase, from: PublicRsvp, action: PublicRsvpAction): Transition<PublicRsvp> {
  const shut = closed(phase);
  if (shut) return refuse(shut);
  switch (action) {
    case "join":
      return to("attending");
    case "interested":
      return to("interested");
    case "leave":
      return from === "none" ? refuse("event.not_participating") : to("none");
  }
}

const ANSWERS: Readonly<Record<"accept" | "maybe" | "reject", InviteRsvp>> = {
  accept: "accepted",
  maybe: "tentative",
  reject: "rejected",
};

/**
 * Invite-only events: the organizer invites (none → pending; inviting again
 * changes nothing) and removes (any invitation or answer → none); an invitee
 * answers accept, maybe or reject from pending, and may change the answer
 * later. Someone never invited is refused. A cancelled or deleted event
 * takes no answers and no invitations; removal stays possible, so the
 * organizer can still tidy the list.
 */
export function inviteRsvp(phase: EventPhase, from: InviteRsvp, action: InviteRsvpAction): Transition<InviteRsvp> {
  if (action === "remove") return from === "none" ? refuse("event.attendee_not_found") : to("none");
  const shut = closed(phase);
  if (shut) return refuse(shut);
  if (action === "invite") return to(from === "none" ? "pending" : from);
  if (from === "none") return refuse("event.not_invited");
  return to(ANSWERS[action]);
}

/** The organizer's acts on the event itself: cancel only a scheduled one; delete any not deleted yet. */
export function eventLifecycle(phase: EventPhase, action: "cancel" | "delete" | "edit"): Transition<EventPhase> {
  if (phase === "deleted") return refuse("event.deleted");
  switch (action) {
    case "cancel":
      return phase === "cancelled" ? refuse("event.already_cancelled") : to("cancelled");
    case "delete":
      return to("deleted");
    case "edit":
      return to(phase);
  }
}
