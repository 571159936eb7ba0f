import type { Kysely } from "kysely";
import type { Database } from "../../ports/storage-schema.js";

/** What decides whether a remote actor may fetch one of our non-public statuses. */
export interface FetchAudienceFacts {
  /** The actor follows the status's author (an accepted follow, not a request). */
  readonly follows: boolean;
  /** The status mentions the actor. */
  readonly mentioned: boolean;
  /** The author blocks the actor. */
  readonly blockedByAuthor: boolean;
}

/**
 * The facts above for the remote actor whose ActivityPub id is `actorUri`,
 * or null when no such remote account is known (or it is suspended): an
 * actor never seen follows no one here and is mentioned nowhere.
 */
export async function fetchAudienceFacts(
  db: Kysely<Database>,
  actorUri: string,
  status: { readonly id: string; readonly account_id: string },
): Promise<FetchAudienceFacts | null> {
  const viewer = await db
    .selectFrom("accounts")
    .select("id")
    .where("uri", "=", actorUri)
    .where("domain", "is not", null)
    .where("suspended_at", "is", null)
    .executeTakeFirst();
  if (!viewer) return null;
  const [follow, mention, block] = await Promise.all([
    db
      .selectFrom("follows")
      .select("id")
      .where("account_id", "=", viewer.id)
      .where("target_account_id", "=", status.account_id)
      .executeTakeFirst(),
    db.selectFrom("mentions").select("status_id").where("status_id", "=", status.id).where("account_id", "=", viewer.id).executeTakeFirst(),
    db
      .selectFrom("blocks")
      .select("id")
      .where("account_id", "=", status.account_id)
      .where("target_account_id", "=", viewer.id)
      .executeTakeFirst(),
  ]);
  return { follows: follow !== undefined, mentioned: mention !== undefined, blockedByAuthor: block !== undefined };
}

/**
 * Whether the remote actor whose ActivityPub id is `actorUri` (known and not
 * suspended) follows the account (an accepted follow) without being blocked
 * by it: what a fetch of the account's followers-only statuses asks.
 */
export async function isUnblockedFollower(db: Kysely<Database>, actorUri: string, accountId: string): Promise<boolean> {
  const row = await db
    .selectFrom("accounts as viewer")
    .innerJoin("follows", (join) => join.onRef("follows.account_id", "=", "viewer.id").on("follows.target_account_id", "=", accountId))
    .leftJoin("blocks", (join) => join.onRef("blocks.target_account_id", "=", "viewer.id").on("blocks.account_id", "=", accountId))
    .select("viewer.id")
    .where("viewer.uri", "=", actorUri)
    .where("viewer.domain", "is not", null)
    .where("viewer.suspended_at", "is", null)
    .where("blocks.id", "is", null)
    .executeTakeFirst();
  return row !== undefined;
}
