import type { ColumnSpec, MigrationSpec } from "../../ports/migration-spec.js";
import { builtInRoleRows } from "./built-in-role-rows.js";

/**
 * Migration 0001: accounts and their logins, roles and permissions (with the
 * built-in roles), OAuth apps and sessions, server settings, one-time
 * secrets and rate counters.
 */
const text: ColumnSpec = { type: "text" };
const optionalText: ColumnSpec = { type: "text", nullable: true };
const at: ColumnSpec = { type: "timestamp" };
const optionalAt: ColumnSpec = { type: "timestamp", nullable: true };
const account: ColumnSpec = { type: "text", references: "accounts(id)" };

export const foundationMigration: MigrationSpec = {
  name: "0001_foundation",
  tables: [
    {
      name: "accounts",
      columns: {
        id: text,
        username: text,
        domain: optionalText,
        acct_key: text,
        display_name: { type: "text", default: "" },
        note: { type: "text", default: "" },
        actor_type: { type: "text", default: "Person" },
        locked: { type: "bool", default: false },
        discoverable: { type: "bool", default: true },
        uri: optionalText,
        url: optionalText,
        created_at: at,
        updated_at: at,
        suspended_at: optionalAt,
        silenced_at: optionalAt,
      },
      primaryKey: ["id"],
      indexes: [
        { name: "accounts_acct_key_idx", columns: ["acct_key"], unique: true },
        { name: "accounts_uri_idx", columns: ["uri"], unique: true },
        { name: "accounts_domain_idx", columns: ["domain"] },
      ],
    },
    {
      name: "users",
      columns: {
        account_id: account,
        email: text,
        email_confirmed_at: optionalAt,
        password_hash: optionalText,
        approved: { type: "bool", default: true },
        disabled_at: optionalAt,
        locale: optionalText,
        created_at: at,
        updated_at: at,
      },
      primaryKey: ["account_id"],
      indexes: [{ name: "users_email_idx", columns: ["email"], unique: true }],
    },
    {
      name: "roles",
      columns: {
        id: text,
        name: text,
        description: optionalText,
        scope: { type: "text", default: "global" },
        built_in: { type: "bool", default: false },
        created_at: at,
        updated_at: at,
      },
      primaryKey: ["id"],
      indexes: [{ name: "roles_scope_name_idx", columns: ["scope", "name"], unique: true }],
    },
    {
      name: "role_permissions",
      columns: { role_id: { type: "text", references: "roles(id)" }, resource: text, access: { type: "json" } },
      primaryKey: ["role_id", "resource"],
    },
    {
      name: "actor_roles",
      columns: { actor_id: account, role_id: { type: "text", references: "roles(id)" }, created_at: at, updated_at: at },
      primaryKey: ["actor_id", "role_id"],
      indexes: [{ name: "actor_roles_role_id_idx", columns: ["role_id"] }],
    },
    {
      name: "oauth_apps",
      columns: {
        id: text,
        name: text,
        website: optionalText,
        redirect_uris: { type: "json" },
        scopes: text,
        client_id: text,
        client_secret_hash: text,
        created_at: at,
      },
      primaryKey: ["id"],
      indexes: [{ name: "oauth_apps_client_id_idx", columns: ["client_id"], unique: true }],
    },
    {
      name: "sessions",
      columns: {
        id: text,
        account_id: { ...account, nullable: true },
        app_id: { type: "text", nullable: true, references: "oauth_apps(id)" },
        token_hash: text,
        refresh_token_hash: optionalText,
        scopes: text,
        user_agent: optionalText,
        ip: optionalText,
        created_at: at,
        last_used_at: optionalAt,
        expires_at: optionalAt,
        revoked_at: optionalAt,
      },
      primaryKey: ["id"],
      indexes: [
        { name: "sessions_token_hash_idx", columns: ["token_hash"], unique: true },
        { name: "sessions_refresh_token_hash_idx", columns: ["refresh_token_hash"], unique: true },
        { name: "sessions_account_id_idx", columns: ["account_id"] },
      ],
    },
    {
      name: "instance_settings",
      columns: { key: text, value: { type: "json" }, updated_at: at },
      primaryKey: ["key"],
    },
    {
      name: "one_time_secrets",
      columns: {
        id: text,
        kind: text,
        secret_hash: text,
        subject_id: optionalText,
        payload: { type: "json", nullable: true },
        attempts: { type: "int", default: 0 },
        expires_at: at,
        consumed_at: optionalAt,
        created_at: at,
      },
      primaryKey: ["id"],
      indexes: [
        { name: "one_time_secrets_kind_hash_idx", columns: ["kind", "secret_hash"], unique: true },
        { name: "one_time_secrets_subject_idx", columns: ["subject_id"] },
      ],
    },
    {
      name: "rate_counters",
      columns: { key: text, count: { type: "int" }, window_ends_at: at },
      primaryKey: ["key"],
    },
  ],
  rows: builtInRoleRows,
};
