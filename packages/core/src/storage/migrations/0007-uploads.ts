import type { ColumnSpec, MigrationSpec } from "../../ports/migration-spec.js";

/**
 * Migration 0007: uploads. The upload record is `media_attachments` (0005);
 * this adds when each processing phase started and how long it took (the
 * admin queues sort by them), the hashed tokens of upload URLs, the
 * processing log, and per-user storage limits that override the defaults.
 */
const text: ColumnSpec = { type: "text" };
const optionalText: ColumnSpec = { type: "text", nullable: true };
const at: ColumnSpec = { type: "timestamp" };
const optionalAt: ColumnSpec = { type: "timestamp", nullable: true };
const media: ColumnSpec = { type: "text", references: "media_attachments(id)" };

export const uploadsMigration: MigrationSpec = {
  name: "0007_uploads",
  addColumns: [
    { table: "media_attachments", column: "submitted_at", spec: optionalAt },
    { table: "media_attachments", column: "started_at", spec: optionalAt },
    { table: "media_attachments", column: "processing_ms", spec: { type: "int", nullable: true } },
    /** True once a custom preview was given (v2 `thumbnail`): processing keeps it. */
    { table: "media_attachments", column: "custom_thumbnail", spec: { type: "bool", default: false } },
  ],
  indexes: [
    { table: "media_attachments", name: "media_attachments_queue_idx", columns: ["state", "submitted_at"] },
    { table: "media_attachments", name: "media_attachments_owner_type_idx", columns: ["account_id", "upload_type", "id"] },
  ],
  tables: [
    {
      name: "upload_tokens",
      columns: {
        upload_id: media,
        account_id: { type: "text", references: "accounts(id)" },
        /** SHA-256 of the token in the upload URL; the token itself is never stored. */
        token_hash: text,
        expires_at: at,
        created_at: at,
      },
      primaryKey: ["upload_id"],
      indexes: [{ name: "upload_tokens_hash_idx", columns: ["token_hash"], unique: true }],
    },
    {
      name: "upload_logs",
      columns: {
        id: text,
        upload_id: media,
        /** A workflow step: upload, detect, validate, process, resize, thumbnail, probe, transcode, store, fetch... */
        step: text,
        /** started, succeeded, failed or skipped. */
        outcome: text,
        message: optionalText,
        created_at: at,
      },
      primaryKey: ["id"],
      indexes: [{ name: "upload_logs_upload_idx", columns: ["upload_id", "id"] }],
    },
    {
      name: "storage_quotas",
      columns: {
        account_id: { type: "text", references: "accounts(id)" },
        max_bytes: { type: "bigint", nullable: true },
        max_files: { type: "int", nullable: true },
        updated_at: at,
      },
      primaryKey: ["account_id"],
    },
  ],
};
