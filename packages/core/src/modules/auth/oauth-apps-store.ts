import type { Kysely, Selectable } from "kysely";
import type { Database, OAuthAppsTable } from "../../ports/storage-schema.js";

export type OAuthAppRow = Selectable<OAuthAppsTable>;

export async function insertOAuthApp(db: Kysely<Database>, app: OAuthAppRow): Promise<void> {
  await db.insertInto("oauth_apps").values(app).execute();
}

export async function findOAuthAppByClientId(db: Kysely<Database>, clientId: string): Promise<OAuthAppRow | null> {
  const row = await db.selectFrom("oauth_apps").selectAll().where("client_id", "=", clientId).executeTakeFirst();
  return row ?? null;
}

export async function findOAuthAppById(db: Kysely<Database>, id: string): Promise<OAuthAppRow | null> {
  const row = await db.selectFrom("oauth_apps").selectAll().where("id", "=", id).executeTakeFirst();
  return row ?? null;
}
