import { InteractionPolicy, InteractionRule, PUBLIC_COLLECTION, QuoteAuthorization } from "@fedify/fedify/vocab";
import { localAccountUrls } from "../../mastodon/serializers/account.js";
import type { AccountRow, StatusRow } from "../../ports/storage-schema.js";
import { type NoteContext, actorUriOf, flag, followersUriOf, statusUriOf } from "./notes.js";
import { storedQuotePolicy, storedQuoteState } from "./quote-policy.js";

/**
 * The ActivityPub side of quote posts (FEP-044f, as Mastodon 4.5 writes it): what a status's Note says of the status
 * it quotes and of who may quote it, and the QuoteAuthorization stamps this server gives for its statuses.
 */

/** Where the stamp that lets `quotingId` quote a status of `quotedAuthor` (a local account) is served. */
export function stampUriOf(origin: string, quotedAuthor: string, quotingId: string): string {
  return `${localAccountUrls(origin, quotedAuthor).uri}/quote_authorizations/${quotingId}`;
}

/** The path of the stamps, for their dispatcher. */
export const STAMP_PATH = "/users/{identifier}/quote_authorizations/{id}";

/** The id of the QuoteRequest a local status's quote sends: the Note's with a fragment, so its Accept leads back to it. */
export function quoteRequestUriOf(noteUri: string): string {
  return `${noteUri}#quote-request`;
}

/** The Note's `quote` (and `quoteUrl`, `_misskey_quote` for older readers), its stamp once accepted, and `interactionPolicy`. */
export function quotePropertiesOf(
  origin: string,
  status: StatusRow,
  notes: NoteContext,
): {
  quote?: URL;
  quoteUrl?: URL;
  quoteAuthorization?: URL;
  interactionPolicy?: InteractionPolicy;
} {
  const author = notes.accounts.get(status.account_id);
  const properties: ReturnType<typeof quotePropertiesOf> = {};
  if (status.quote_uri !== null) {
    properties.quote = new URL(status.quote_uri);
    properties.quoteUrl = new URL(status.quote_uri);
    const stamp = stampOf(origin, status, notes);
    if (stamp) properties.quoteAuthorization = new URL(stamp);
  }
  if (flag(status.local) && author) properties.interactionPolicy = interactionPolicyOf(origin, status, author);
  return properties;
}

/** The stamp of an accepted quote: given by another server, or by this one for a local quoted status. */
function stampOf(origin: string, status: StatusRow, notes: NoteContext): string | null {
  if (storedQuoteState(status.quote_state) !== "accepted") return null;
  if (status.quote_authorization !== null) return status.quote_authorization;
  const quoted = status.quote_id ? notes.statuses.get(status.quote_id) : undefined;
  const quotedAuthor = quoted ? notes.accounts.get(quoted.account_id) : undefined;
  return quoted && quotedAuthor && quotedAuthor.domain === null ? stampUriOf(origin, quotedAuthor.username, status.id) : null;
}

/** `canQuote` as the status's policy says: everyone or the followers approved automatically, or nobody but the author. */
function interactionPolicyOf(origin: string, status: StatusRow, author: AccountRow): InteractionPolicy {
  const policy = storedQuotePolicy(status.quote_policy);
  const actor = actorUriOf(origin, author);
  const approved: URL[] = actor ? [new URL(actor)] : [];
  if (policy === "public") approved.push(PUBLIC_COLLECTION);
  if (policy === "followers") approved.push(new URL(followersUriOf(origin, author.username)));
  return new InteractionPolicy({ canQuote: new InteractionRule({ automaticApprovals: approved }) });
}

/** The stamp of a quote of a local status, as served at its id. */
export function quoteAuthorizationOf(
  origin: string,
  quoted: { readonly status: Pick<StatusRow, "id" | "uri" | "local">; readonly author: AccountRow },
  quoting: { readonly status: Pick<StatusRow, "id" | "uri" | "local">; readonly author: AccountRow },
): QuoteAuthorization | null {
  const actor = actorUriOf(origin, quoted.author);
  const target = statusUriOf(origin, quoted.status, quoted.author);
  const object = statusUriOf(origin, quoting.status, quoting.author);
  if (actor === null || target === null || object === null) return null;
  return new QuoteAuthorization({
    id: new URL(stampUriOf(origin, quoted.author.username, quoting.status.id)),
    attribution: new URL(actor),
    interactingObject: new URL(object),
    interactionTarget: new URL(target),
  });
}
