import type { Kysely } from "kysely";
import type { FetchSigner } from "../../platform/federation/fetch-signer.js";
import type { Database, Visibility } from "../../ports/storage-schema.js";
import { fetchAudienceFacts, isUnblockedFollower } from "./status-fetch-audience-store.js";

/** The status fields the decision reads. */
export interface FetchedStatus {
  readonly id: string;
  readonly account_id: string;
  readonly visibility: Visibility;
}

/**
 * Whether a status is served to a GET of its object, as Mastodon decides
 * (its StatusPolicy): public and unlisted ones to anyone; followers-only ones
 * to a signed request of an actor who follows the author or is mentioned;
 * direct ones to a mentioned actor's; neither to an actor the author
 * blocks. Every other request gets the 404 of a status that is not there. A
 * public status is not kept from a blocked actor: anyone may fetch it
 * unsigned (unless in secure mode, which refuses blocked domains).
 */
export async function mayFetchStatus(
  db: Kysely<Database>,
  status: FetchedStatus,
  signerOf: (() => Promise<FetchSigner>) | undefined,
): Promise<boolean> {
  if (status.visibility === "public" || status.visibility === "unlisted") return true;
  // Verified only now: a public status costs no key fetch.
  const signer = await signerOf?.();
  if (signer?.kind !== "signed") return false;
  const facts = await fetchAudienceFacts(db, signer.actor.href, status);
  if (facts === null || facts.blockedByAuthor) return false;
  return facts.mentioned || (status.visibility === "private" && facts.follows);
}

/**
 * Whether a fetch of an account's collections (its outbox) lists its
 * followers-only statuses too: a signed request of an actor who follows the
 * account and is not blocked by it.
 */
export async function mayFetchFollowersOnlyOf(
  db: Kysely<Database>,
  accountId: string,
  signerOf: (() => Promise<FetchSigner>) | undefined,
): Promise<boolean> {
  const signer = await signerOf?.();
  if (signer?.kind !== "signed") return false;
  return isUnblockedFollower(db, signer.actor.href, accountId);
}
