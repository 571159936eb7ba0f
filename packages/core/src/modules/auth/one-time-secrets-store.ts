import type { Kysely } from "kysely";
import type { Database } from "../../ports/storage-schema.js";

export interface NewOneTimeSecret {
  readonly id: string;
  readonly kind: string;
  readonly secretHash: string;
  readonly subjectId: string | null;
  readonly payload: string | null;
  readonly expiresAt: string;
  readonly createdAt: string;
}

/** Stores a secret to be consumed later, once, through `Storage.consumeOnce`. */
export async function insertOneTimeSecret(db: Kysely<Database>, secret: NewOneTimeSecret): Promise<void> {
  await db
    .insertInto("one_time_secrets")
    .values({
      id: secret.id,
      kind: secret.kind,
      secret_hash: secret.secretHash,
      subject_id: secret.subjectId,
      payload: secret.payload,
      expires_at: secret.expiresAt,
      consumed_at: null,
      created_at: secret.createdAt,
    })
    .execute();
}
