import type { TestKith } from "@kith/core/testing";

/**
 * An image attachment of `accountId`, processed and attached to nothing, as
 * an upload is once its processing completed: written straight to storage,
 * for tests about posts with media rather than about uploads. Returns its id.
 */
export async function insertCompletedMedia(kith: Pick<TestKith, "storage" | "clock">, accountId: string, id: string): Promise<string> {
  const now = kith.clock.now().toISOString();
  await kith.storage.db
    .insertInto("media_attachments")
    .values({ id, account_id: accountId, type: "image", upload_type: "IMAGE", state: "completed", created_at: now, updated_at: now })
    .execute();
  return id;
}
