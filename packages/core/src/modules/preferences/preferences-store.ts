import type { Storage } from "../../ports/storage.js";
import type { UserRow } from "../../ports/storage-schema.js";

/** The user's stored posting defaults and reading preferences, as the row holds them. */
export type StoredPreferences = Pick<UserRow, "default_visibility" | "default_sensitive" | "default_language" | "expand_media" | "expand_spoilers">;

/** The SQL of the preferences module: it reads the `users` row of an account. */
export class PreferencesStore {
  constructor(private readonly storage: Storage) {}

  async find(accountId: string): Promise<StoredPreferences | undefined> {
    return this.storage.db
      .selectFrom("users")
      .select(["default_visibility", "default_sensitive", "default_language", "expand_media", "expand_spoilers"])
      .where("account_id", "=", accountId)
      .executeTakeFirst();
  }
}
