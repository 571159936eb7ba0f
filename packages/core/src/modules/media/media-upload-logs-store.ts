import type { Kysely } from "kysely";
import type { Database } from "../../ports/storage-schema.js";

export interface UploadLogRow {
  readonly id: string;
  readonly upload_id: string;
  readonly step: string;
  readonly outcome: string;
  readonly message: string | null;
  readonly created_at: string;
}

export async function insertUploadLog(db: Kysely<Database>, row: UploadLogRow): Promise<void> {
  await db.insertInto("upload_logs").values(row).execute();
}

/** An upload's processing log, oldest step first. */
export async function listUploadLogs(db: Kysely<Database>, uploadId: string): Promise<UploadLogRow[]> {
  return db.selectFrom("upload_logs").selectAll().where("upload_id", "=", uploadId).orderBy("id").execute();
}
