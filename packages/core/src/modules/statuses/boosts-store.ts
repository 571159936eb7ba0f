import type { Kysely } from "kysely";
import type { Database } from "../../ports/storage-schema.js";

/** The account's boost of the status, if it boosted it (a group may forward one status twice: as its Create and as the status). */
export async function findBoostBy(db: Kysely<Database>, accountId: string, statusId: string): Promise<string | null> {
  const boost = await db
    .selectFrom("statuses")
    .select("id")
    .where("account_id", "=", accountId)
    .where("reblog_of_id", "=", statusId)
    .executeTakeFirst();
  return boost?.id ?? null;
}
