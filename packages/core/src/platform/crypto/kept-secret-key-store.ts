import type { Kysely } from "kysely";
import type { Database } from "../../ports/storage-schema.js";

const NAME = "default";

/**
 * The secret key the server keeps in its database (migration 0028): the one
 * stored, or `candidate` stored now. Two processes starting together agree,
 * as the first insert wins and both read it back.
 */
export async function keptSecretKey(db: Kysely<Database>, candidate: string, now: string): Promise<string> {
  await db
    .insertInto("server_secret_keys")
    .values({ name: NAME, secret: candidate, created_at: now })
    .onConflict((oc) => oc.column("name").doNothing())
    .execute();
  const row = await db.selectFrom("server_secret_keys").select("secret").where("name", "=", NAME).executeTakeFirstOrThrow();
  return row.secret;
}
