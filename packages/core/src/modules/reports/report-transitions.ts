import { REPORT_STATES, type ReportState } from "./report-tables-store.js";

/**
 * The report's state machine (the spec's "States and transitions → Report"),
 * as a pure function: the service reads the report, asks here what it
 * becomes, and writes that. Rows of the spec's table:
 *
 * | from                  | trigger            | to           | also                                   |
 * |-----------------------|--------------------|--------------|----------------------------------------|
 * | open                  | assign(user)       | under_review | the user is the assigned moderator     |
 * | under_review          | assign(null)       | open         | assignment removed                     |
 * | under_review          | unassign           | open         | assignment removed                     |
 * | any                   | resolve            | resolved     | caller recorded, actionTakenAt set     |
 * | any                   | dismiss            | dismissed    | caller recorded, actionTakenAt set     |
 * | resolved or dismissed | reopen             | open         | assignment and action fields cleared   |
 *
 * Where the spec leaves source states open, Kith decides: assigning a report
 * under review to another moderator hands it over (as Mastodon's
 * assign_to_self does); unassigning, or assigning null, removes any
 * assignment in any state, and a report under review goes back to open (an
 * open report stays open, a closed one stays closed). Refused: assigning a
 * user to a resolved or dismissed report (reopen it first), and reopening a
 * report that is not resolved or dismissed.
 */

export { REPORT_STATES, type ReportState };

/** The states a report is still being handled in; a target has at most one report in them. */
export const UNRESOLVED_STATES: readonly ReportState[] = ["open", "under_review"];

/** The part of a report the transitions change. */
export interface ReportStanding {
  readonly state: ReportState;
  readonly assignedAccountId: string | null;
  readonly actionTakenById: string | null;
  readonly actionTakenAt: string | null;
}

export type ReportTrigger =
  | { readonly kind: "assign"; readonly assigneeId: string | null }
  | { readonly kind: "unassign" }
  | { readonly kind: "resolve"; readonly actorId: string; readonly at: string }
  | { readonly kind: "dismiss"; readonly actorId: string; readonly at: string }
  | { readonly kind: "reopen" };

/** Why a transition is refused; each is a `report.*` error code (409). */
export type TransitionRefusal = "report.assign_closed" | "report.not_closed";

export type TransitionOutcome =
  | { readonly ok: true; readonly standing: ReportStanding }
  | { readonly ok: false; readonly refusal: TransitionRefusal };

export function isClosed(state: ReportState): boolean {
  return state === "resolved" || state === "dismissed";
}

const to = (standing: ReportStanding): TransitionOutcome => ({ ok: true, standing });

/** What the report becomes on the trigger, or why it may not. */
export function transition(current: ReportStanding, trigger: ReportTrigger): TransitionOutcome {
  switch (trigger.kind) {
    case "assign":
      if (trigger.assigneeId === null) return transition(current, { kind: "unassign" });
      if (isClosed(current.state)) return { ok: false, refusal: "report.assign_closed" };
      return to({ ...current, state: "under_review", assignedAccountId: trigger.assigneeId });
    case "unassign":
      return to({ ...current, state: current.state === "under_review" ? "open" : current.state, assignedAccountId: null });
    case "resolve":
      return to({ ...current, state: "resolved", actionTakenById: trigger.actorId, actionTakenAt: trigger.at });
    case "dismiss":
      return to({ ...current, state: "dismissed", actionTakenById: trigger.actorId, actionTakenAt: trigger.at });
    case "reopen":
      if (!isClosed(current.state)) return { ok: false, refusal: "report.not_closed" };
      return to({ state: "open", assignedAccountId: null, actionTakenById: null, actionTakenAt: null });
  }
}
