import type { ColumnSpec, MigrationSpec } from "../../ports/migration-spec.js";

/**
 * Migration 0012: the foundation of federation. Fedify's key-value store
 * (remote document cache, idempotence, signature-spec memory) with expiry,
 * the key pairs of local actors, and the administrators' domain policy
 * (domain blocks and the domain allowlist).
 */
const text: ColumnSpec = { type: "text" };
const optionalText: ColumnSpec = { type: "text", nullable: true };
const at: ColumnSpec = { type: "timestamp" };
const no: ColumnSpec = { type: "bool", default: false };

export const federationMigration: MigrationSpec = {
  name: "0012_federation",
  addColumns: [
    /** Where a remote actor takes activities; null for local accounts. */
    { table: "accounts", column: "inbox_url", spec: optionalText },
    { table: "accounts", column: "shared_inbox_url", spec: optionalText },
  ],
  tables: [
    {
      name: "federation_kv",
      columns: {
        /** The Fedify key as a JSON array of strings. */
        key: text,
        /** JSON text (not jsonb: values are returned exactly as Fedify stored them). */
        value: text,
        expires_at: { type: "timestamp", nullable: true },
      },
      primaryKey: ["key"],
      indexes: [{ name: "federation_kv_expires_idx", columns: ["expires_at"] }],
    },
    {
      name: "actor_key_pairs",
      columns: {
        /** An account id, or `instance` for the instance actor. */
        owner_id: text,
        /** RSASSA-PKCS1-v1_5 or Ed25519. */
        algorithm: text,
        public_jwk: text,
        private_jwk: text,
        created_at: at,
      },
      primaryKey: ["owner_id", "algorithm"],
    },
    {
      name: "domain_blocks",
      columns: {
        id: text,
        /** Lower-case, punycode, no trailing dot; covers its subdomains. */
        domain: text,
        /** The spec's severity: SUSPEND, LIMIT or NOOP (Mastodon's suspend, silence, noop). */
        severity: text,
        reject_media: no,
        reject_reports: no,
        private_comment: optionalText,
        public_comment: optionalText,
        obfuscate: no,
        created_at: at,
        updated_at: at,
      },
      primaryKey: ["id"],
      indexes: [{ name: "domain_blocks_domain_idx", columns: ["domain"], unique: true }],
    },
    {
      name: "domain_allows",
      columns: { id: text, domain: text, created_at: at },
      primaryKey: ["id"],
      indexes: [{ name: "domain_allows_domain_idx", columns: ["domain"], unique: true }],
    },
  ],
};
