import type { Kysely } from "kysely";
import { KithError } from "../../domain/errors.js";
import { readFlag } from "../../platform/storage/boolean-columns.js";
import type { Database, StatusRow } from "../../ports/storage-schema.js";
import { findAccountById } from "../accounts/accounts-store.js";
import { statusUriOf } from "./status-uris.js";
import { quoteDecision } from "./quote-policy.js";
import { followedAmong } from "./quotes-store.js";

/** A quote a new status makes: of which status, named how, and whether it is accepted at once. */
export interface NewQuote {
  readonly statusId: string;
  readonly accountId: string;
  /** The quoted status's ActivityPub id, which the new status's Note names as its `quote`. */
  readonly uri: string;
  /** Accepted when the quoted status's policy lets the author quote it; pending another server's answer, or a manual one. */
  readonly state: "accepted" | "pending";
  /** The quoted status is followers-only (its author quoting it): the quote may not reach further. */
  readonly private: boolean;
}

/**
 * Whether `accountId` may quote `quoted` (a status it may see), and how: a boost, or a status whose policy refuses the
 * author, cannot be quoted (403). A local status's policy decides at once; another server's status is quoted pending
 * the QuoteAuthorization its server sends (FEP-044f).
 */
export async function quoteTarget(db: Kysely<Database>, origin: string, accountId: string, quoted: StatusRow): Promise<NewQuote> {
  if (quoted.reblog_of_id !== null) throw new KithError("status.not_quotable");
  const local = readFlag(quoted.local);
  const follows =
    quoted.quote_policy === "followers" &&
    quoted.account_id !== accountId &&
    (await followedAmong(db, accountId, [quoted.account_id])).size > 0;
  const decision = quoteDecision({ ...quoted, local }, { accountId, follows });
  if (decision === "denied") throw new KithError("status.not_quotable");
  const author = await findAccountById(db, quoted.account_id);
  const uri = author ? statusUriOf(origin, quoted, author) : quoted.uri;
  if (uri === null) throw new KithError("status.not_quotable");
  return {
    statusId: quoted.id,
    accountId: quoted.account_id,
    uri,
    state: local && decision === "automatic" ? "accepted" : "pending",
    private: quoted.visibility === "private",
  };
}
