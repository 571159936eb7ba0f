/**
 * Notification policies (Mastodon 4.3): what becomes of a notification from
 * an account the recipient does not follow, that does not follow them, that
 * is new, that mentions them privately, or of a limited domain: accepted,
 * filtered (held as a notification request) or dropped (never written).
 */
import { newAccountsSince } from "./notifications-store.js";

/** Types no policy holds back, as Mastodon's: a poll's end, an edit, the moderators' notices; and groups' own. */
export function unfilteredType(type: string): boolean {
  return type === "poll" || type === "update" || type.startsWith("admin.") || type.startsWith("group.");
}

/** What the policy check of a notification of `type` written at `now` needs to know besides its sender. */
export function policyRules(type: string, now: Date): { unfiltered: boolean; mention: boolean; newAccountsSince: string } {
  return {
    unfiltered: unfilteredType(type),
    mention: type === "mention",
    newAccountsSince: newAccountsSince(now),
  };
}
