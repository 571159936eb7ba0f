import type { Storage } from "../../ports/storage.js";

/** The most accounts robots.txt names; past it, their pages still say noindex themselves. */
const MOST_LISTED = 5_000;

/** The local accounts that chose not to be indexed by search engines, or are suspended, by username. */
export async function unindexedLocalUsernames(storage: Storage): Promise<string[]> {
  const rows = await storage.db
    .selectFrom("accounts")
    .select("username")
    .where("domain", "is", null)
    .where((eb) => eb.or([eb("indexable", "=", false), eb("suspended_at", "is not", null)]))
    .orderBy("username")
    .limit(MOST_LISTED)
    .execute();
  return rows.map((row) => row.username);
}
