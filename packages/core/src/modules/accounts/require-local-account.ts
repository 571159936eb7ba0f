import type { Kysely } from "kysely";
import type { LocalAccount } from "../../domain/accounts.js";
import { KithError } from "../../domain/errors.js";
import { findLocalAccountById } from "./accounts-store.js";
import type { Database } from "../../ports/storage-schema.js";

/** The local account with this id; `account.not_found` when there is none. */
export async function requireLocalAccount(db: Kysely<Database>, id: string): Promise<LocalAccount> {
  const account = await findLocalAccountById(db, id);
  if (!account) throw new KithError("account.not_found");
  return account;
}
