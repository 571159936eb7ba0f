import type { Kysely } from "kysely";
import type { Database } from "../../ports/storage-schema.js";

export interface StoredKeyPair {
  readonly algorithm: string;
  readonly publicJwk: string;
  readonly privateJwk: string;
}

/** The stored key pairs of an actor (account id or `instance`), RSA first. */
export async function findActorKeyPairs(db: Kysely<Database>, ownerId: string): Promise<StoredKeyPair[]> {
  const rows = await db
    .selectFrom("actor_key_pairs")
    .select(["algorithm", "public_jwk", "private_jwk"])
    .where("owner_id", "=", ownerId)
    .orderBy("algorithm", "desc")
    .execute();
  return rows.map((row) => ({ algorithm: row.algorithm, publicJwk: row.public_jwk, privateJwk: row.private_jwk }));
}

/** Stores a key pair unless the actor already has one of that algorithm (a concurrent first use keeps the first). */
export async function insertActorKeyPair(db: Kysely<Database>, ownerId: string, pair: StoredKeyPair, createdAt: string): Promise<void> {
  await db
    .insertInto("actor_key_pairs")
    .values({
      owner_id: ownerId,
      algorithm: pair.algorithm,
      public_jwk: pair.publicJwk,
      private_jwk: pair.privateJwk,
      created_at: createdAt,
    })
    .onConflict((oc) => oc.columns(["owner_id", "algorithm"]).doNothing())
    .execute();
}
