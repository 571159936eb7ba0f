import type { Visibility } from "../../ports/storage-schema.js";

/**
 * Who may quote a status, and where a quote stands: Mastodon 4.5's quote
 * posts (its `quote_approval_policy`, Quote states and QuoteApproval entity)
 * and FEP-044f's `interactionPolicy.canQuote`, in one place.
 */

/** What a local author chooses (Mastodon's `quote_approval_policy`). */
export const QUOTE_POLICIES = ["public", "followers", "nobody"] as const;
export type ChosenQuotePolicy = (typeof QUOTE_POLICIES)[number];

/** As stored: a local author's choice, or `manual` (another server's status whose author decides each quote). */
export type QuotePolicy = ChosenQuotePolicy | "manual";

/** Where a quote stands, as Mastodon's Quote entity names it. */
export type QuoteState = "pending" | "accepted" | "rejected" | "revoked" | "deleted" | "unauthorized";

/** A status's policy as its row holds it; anything unknown reads as nobody. */
export function storedQuotePolicy(value: string | null): QuotePolicy | null {
  return value === "public" || value === "followers" || value === "nobody" || value === "manual" ? value : null;
}

/** The policy a new status is stored with: private and direct statuses cannot be quoted, whatever was asked. */
export function policyOfNewStatus(asked: ChosenQuotePolicy | undefined, visibility: Visibility): ChosenQuotePolicy {
  if (visibility === "private" || visibility === "direct") return "nobody";
  return asked ?? "public";
}

/** Mastodon's QuoteApproval: who is approved automatically, who manually, and how it applies to the viewer. */
export interface QuoteApproval {
  readonly automatic: string[];
  readonly manual: string[];
  readonly current_user: "automatic" | "manual" | "denied" | "unknown";
}

/** How a status's policy applies to one would-be quoter. */
export interface Quoter {
  /** Null for a viewer not signed in. */
  readonly accountId: string | null;
  /** Whether the quoter follows the status's author. */
  readonly follows: boolean;
}

/** What a quote by `quoter` of a status would get: approved at once, asked for, or refused. */
export function quoteDecision(
  status: { readonly account_id: string; readonly visibility: string; readonly quote_policy: string | null; readonly local: boolean },
  quoter: Quoter,
): "automatic" | "manual" | "denied" | "unknown" {
  if (quoter.accountId === null) return "unknown";
  // Every status but a direct one may be quoted by its author, as Mastodon allows; a private one by nobody else.
  if (status.visibility === "direct") return "denied";
  if (status.account_id === quoter.accountId) return "automatic";
  if (status.visibility === "private") return "denied";
  const policy = storedQuotePolicy(status.quote_policy);
  switch (policy) {
    case "public":
      return "automatic";
    case "followers":
      return quoter.follows ? "automatic" : "denied";
    case "manual":
      return "manual";
    case "nobody":
      return "denied";
    default:
      // Another server's status that named no policy: its server may still answer a request; a local one predates quotes.
      return status.local ? "denied" : "unknown";
  }
}

/** The QuoteApproval entity of a status for a viewer. */
export function quoteApprovalOf(policy: string | null, decision: QuoteApproval["current_user"]): QuoteApproval {
  const stored = storedQuotePolicy(policy);
  return {
    automatic: stored === "public" || stored === "followers" ? [stored] : [],
    manual: stored === "manual" ? ["public"] : [],
    current_user: decision,
  };
}

/** A quote's state as its row holds it; a quote stored before states existed was shown, so reads as accepted. */
export function storedQuoteState(value: string | null): QuoteState {
  switch (value) {
    case "pending":
    case "rejected":
    case "revoked":
    case "deleted":
    case "unauthorized":
      return value;
    default:
      return "accepted";
  }
}
