import type { MigrationSpec } from "../../ports/migration-spec.js";

/** Translations kept per status, target language and version of the status (a new edit makes them stale). */
export const translationMigrations: readonly MigrationSpec[] = [
  {
    name: "translations_0001_status_translations",
    tables: [
      {
        name: "status_translations",
        columns: {
          status_id: { type: "text", references: "statuses(id)", onDelete: "cascade" },
          language: { type: "text" },
          /** The version translated: the time of the status's last edit, or of its creation. */
          version: { type: "text" },
          /** The Translation entity, as JSON text. */
          translation: { type: "text" },
          created_at: { type: "timestamp" },
        },
        primaryKey: ["status_id", "language"],
        withoutRowid: true,
      },
    ],
  },
];
