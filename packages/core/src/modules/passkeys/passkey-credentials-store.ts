import type { Kysely, Selectable } from "kysely";
import type { Database, PasskeyCredentialsTable } from "../../ports/storage-schema.js";

export type PasskeyCredentialRow = Selectable<PasskeyCredentialsTable>;

export interface NewPasskeyCredential {
  readonly id: string;
  readonly credentialId: string;
  readonly accountId: string;
  readonly publicKeyCose: string;
  readonly publicKeyAlg: number;
  readonly aaguid: string;
  readonly signCount: number;
  readonly transports: readonly string[];
  readonly createdAt: string;
}

export async function insertPasskeyCredential(db: Kysely<Database>, credential: NewPasskeyCredential): Promise<void> {
  await db
    .insertInto("passkey_credentials")
    .values({
      id: credential.id,
      credential_id: credential.credentialId,
      account_id: credential.accountId,
      public_key_cose: credential.publicKeyCose,
      public_key_alg: credential.publicKeyAlg,
      aaguid: credential.aaguid,
      sign_count: credential.signCount,
      transports: JSON.stringify(credential.transports),
      created_at: credential.createdAt,
      last_used_at: null,
    })
    .execute();
}

export async function findPasskeyByCredentialId(db: Kysely<Database>, credentialId: string): Promise<PasskeyCredentialRow | null> {
  return (
    (await db.selectFrom("passkey_credentials").selectAll().where("credential_id", "=", credentialId).executeTakeFirst()) ?? null
  );
}

export async function listPasskeysOfAccount(db: Kysely<Database>, accountId: string): Promise<PasskeyCredentialRow[]> {
  return db.selectFrom("passkey_credentials").selectAll().where("account_id", "=", accountId).orderBy("id", "asc").execute();
}

/**
 * Moves the signature counter forward only: the WHERE makes a concurrent use
 * with the same or a lower counter lose, so one signature cannot be replayed
 * by racing. Returns whether the counter moved.
 */
export async function advanceSignCount(
  db: Kysely<Database>,
  credentialId: string,
  previous: number,
  next: number,
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable("passkey_credentials")
    .set({ sign_count: next, last_used_at: now })
    .where("credential_id", "=", credentialId)
    .where("sign_count", "=", previous)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deletePasskeyOfAccount(db: Kysely<Database>, accountId: string, credentialId: string): Promise<number> {
  const result = await db
    .deleteFrom("passkey_credentials")
    .where("account_id", "=", accountId)
    .where("credential_id", "=", credentialId)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
