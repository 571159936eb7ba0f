import type { Kysely } from "kysely";
import type { Storage } from "../../ports/storage.js";

export interface StatusTranslationRow {
  readonly status_id: string;
  readonly language: string;
  readonly version: string;
  readonly translation: string;
  readonly created_at: string;
}

/** The module's table, as Kysely sees it. */
type TranslationTables = { status_translations: StatusTranslationRow };

/** The translations module's SQL, and the only place it has any. */
export class TranslationsStore {
  readonly #db: Kysely<TranslationTables>;

  constructor(storage: Storage) {
    // The core's schema type knows the core's tables; the module adds its own.
    this.#db = storage.db.withTables<TranslationTables>() as unknown as Kysely<TranslationTables>;
  }

  async find(statusId: string, language: string): Promise<StatusTranslationRow | undefined> {
    return this.#db
      .selectFrom("status_translations")
      .selectAll()
      .where("status_id", "=", statusId)
      .where("language", "=", language)
      .executeTakeFirst();
  }

  /** Keeps a translation, replacing the one of an earlier version. */
  async save(row: StatusTranslationRow): Promise<void> {
    await this.#db
      .insertInto("status_translations")
      .values(row)
      .onConflict((oc) =>
        oc
          .columns(["status_id", "language"])
          .doUpdateSet({ version: row.version, translation: row.translation, created_at: row.created_at }),
      )
      .execute();
  }
}
