import { Article, Note, PUBLIC_COLLECTION, Question } from "@fedify/fedify/vocab";
import type { StatusRow } from "../../ports/storage-schema.js";
import { flag } from "./notes.js";
import type { QuotePolicy } from "./quote-policy.js";

/**
 * What another server's status says of quotes (FEP-044f): who may quote it (`interactionPolicy.canQuote`), and how its
 * own quote stands. A quote of a local status is pending until its author's server authorized it, which is this one
 * (a QuoteRequest answered, quote-inbox.ts); a quote of another server's status is shown as it comes, with the stamp
 * it names.
 */

type QuotingObject = Note | Article | Question;

function isQuotingObject(object: unknown): object is QuotingObject {
  return object instanceof Note || object instanceof Article || object instanceof Question;
}

/** The policy a remote status states, or null when it states none (quotes are then asked for, and may go unanswered). */
export function statedQuotePolicy(object: unknown, followersUri: string | null): QuotePolicy | null {
  if (!isQuotingObject(object)) return null;
  const policy = object.interactionPolicy;
  if (!policy) return null;
  const rule = policy.canQuote;
  if (!rule) return "nobody";
  const automatic = rule.automaticApprovals.map((url) => url.href);
  if (automatic.includes(PUBLIC_COLLECTION.href)) return "public";
  if (followersUri !== null && automatic.includes(followersUri)) return "followers";
  return rule.manualApprovals.length > 0 ? "manual" : "nobody";
}

/** How the quote of a newly stored remote status stands. */
export function incomingQuoteState(
  object: unknown,
  quoted: Pick<StatusRow, "local"> | null,
  quoteUri: string | null,
): { quote_state: "pending" | "accepted"; quote_authorization: string | null } | null {
  if (quoteUri === null) return null;
  if (quoted && flag(quoted.local)) return { quote_state: "pending", quote_authorization: null };
  const stamp = isQuotingObject(object) ? (object.quoteAuthorizationId?.href ?? null) : null;
  return { quote_state: "accepted", quote_authorization: stamp };
}
