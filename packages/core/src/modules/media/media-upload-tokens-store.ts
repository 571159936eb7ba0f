import type { Kysely } from "kysely";
import type { Database, UploadTokensTable } from "../../ports/storage-schema.js";

/** Stores (or replaces) the hashed token of an upload's PUT URL. */
export async function putUploadToken(db: Kysely<Database>, row: UploadTokensTable): Promise<void> {
  await db.deleteFrom("upload_tokens").where("upload_id", "=", row.upload_id).execute();
  await db.insertInto("upload_tokens").values(row).execute();
}

export async function findUploadToken(db: Kysely<Database>, uploadId: string): Promise<UploadTokensTable | null> {
  return (await db.selectFrom("upload_tokens").selectAll().where("upload_id", "=", uploadId).executeTakeFirst()) ?? null;
}

export async function deleteUploadToken(db: Kysely<Database>, uploadId: string): Promise<void> {
  await db.deleteFrom("upload_tokens").where("upload_id", "=", uploadId).execute();
}
