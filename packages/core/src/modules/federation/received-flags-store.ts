import type { Kysely } from "kysely";
import type { Database } from "../../ports/storage-schema.js";

/** A report another server sent about one of this server's accounts. */
export interface ReceivedFlag {
  readonly id: string;
  /** The actor that sent it. */
  readonly accountId: string;
  readonly targetAccountId: string;
  /** The reported statuses of the target known here. */
  readonly statusIds: readonly string[];
  readonly comment: string;
  readonly uri: string | null;
}

/** Keeps a report; false when the same Flag about the same account was kept already. */
export async function insertReceivedFlag(db: Kysely<Database>, flag: ReceivedFlag, now: string): Promise<boolean> {
  const inserted = await db
    .insertInto("received_flags")
    .values({
      id: flag.id,
      account_id: flag.accountId,
      target_account_id: flag.targetAccountId,
      status_ids: JSON.stringify(flag.statusIds),
      comment: flag.comment,
      uri: flag.uri,
      created_at: now,
    })
    .onConflict((oc) => oc.doNothing())
    .returning("id")
    .executeTakeFirst();
  return inserted !== undefined;
}
