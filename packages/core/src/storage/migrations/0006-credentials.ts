import type { ColumnSpec, MigrationSpec } from "../../ports/migration-spec.js";

/**
 * Migration 0006: credentials. Phone numbers (a login identifier beside the
 * email address), passkeys (WebAuthn credentials, fields as the spec's
 * "Passkey credential"), the audit log of login-method changes, and the new
 * password an authenticated change keeps aside until its code is confirmed.
 * Codes and flags themselves live in `one_time_secrets` (0001).
 */
const text: ColumnSpec = { type: "text" };
const at: ColumnSpec = { type: "timestamp" };
const optionalAt: ColumnSpec = { type: "timestamp", nullable: true };
const optionalText: ColumnSpec = { type: "text", nullable: true };
const account: ColumnSpec = { type: "text", references: "accounts(id)", onDelete: "cascade" };

export const credentialsMigration: MigrationSpec = {
  name: "0006_credentials",
  tables: [
    {
      name: "user_phones",
      columns: {
        account_id: account,
        /** E.164, unique: one number signs in one account. */
        phone: text,
        verified_at: at,
        created_at: at,
        updated_at: at,
      },
      primaryKey: ["account_id"],
      indexes: [{ name: "user_phones_phone_idx", columns: ["phone"], unique: true }],
    },
    {
      name: "passkey_credentials",
      columns: {
        id: text,
        /** base64url credential id, as the authenticator reports it. */
        credential_id: text,
        account_id: account,
        /** base64url COSE public key. */
        public_key_cose: text,
        public_key_alg: { type: "int" },
        aaguid: text,
        sign_count: { type: "bigint", default: 0 },
        /** JSON array of transports the browser reported. */
        transports: { type: "json", default: "[]" },
        created_at: at,
        last_used_at: optionalAt,
      },
      primaryKey: ["id"],
      indexes: [
        { name: "passkey_credentials_credential_idx", columns: ["credential_id"], unique: true },
        { name: "passkey_credentials_account_idx", columns: ["account_id", "id"] },
      ],
    },
    {
      name: "login_audit_log",
      columns: {
        id: text,
        account_id: account,
        /** What changed, e.g. `login_method.added`, `password.changed`. */
        action: text,
        /** The method concerned: email, phone, password, passkey. */
        method: text,
        /** A masked identifier or a credential id, never a secret. */
        detail: optionalText,
        ip: optionalText,
        created_at: at,
      },
      primaryKey: ["id"],
      indexes: [{ name: "login_audit_log_account_idx", columns: ["account_id", "id"] }],
    },
    {
      name: "pending_password_changes",
      columns: {
        account_id: account,
        /** The new password, hashed as any password: never kept in clear, even for minutes. */
        password_hash: text,
        created_at: at,
        expires_at: at,
      },
      primaryKey: ["account_id"],
    },
  ],
};
