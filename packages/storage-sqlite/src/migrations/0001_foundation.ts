import { type Kysely, sql } from "kysely";
import { seedBuiltInRoles } from "@kith/core";

/**
 * Accounts and their logins, roles and permissions, OAuth apps and sessions,
 * server settings, one-time secrets and rate counters. Timestamps are ISO
 * 8601 text, booleans 0/1, JSON as text. Keep in step with the PostgreSQL
 * migration of the same number: a test compares the two schemas.
 */
const statements = [
  `CREATE TABLE accounts (
    id TEXT PRIMARY KEY NOT NULL,
    username TEXT NOT NULL,
    domain TEXT,
    acct_key TEXT NOT NULL,
    display_name TEXT NOT NULL DEFAULT '',
    note TEXT NOT NULL DEFAULT '',
    actor_type TEXT NOT NULL DEFAULT 'Person',
    locked INTEGER NOT NULL DEFAULT 0,
    discoverable INTEGER NOT NULL DEFAULT 1,
    uri TEXT,
    url TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    suspended_at TEXT,
    silenced_at TEXT
  ) STRICT`,
  "CREATE UNIQUE INDEX accounts_acct_key_idx ON accounts (acct_key)",
  "CREATE UNIQUE INDEX accounts_uri_idx ON accounts (uri)",
  "CREATE INDEX accounts_domain_idx ON accounts (domain)",
  `CREATE TABLE users (
    account_id TEXT PRIMARY KEY NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    email TEXT NOT NULL,
    email_confirmed_at TEXT,
    password_hash TEXT,
    approved INTEGER NOT NULL DEFAULT 1,
    disabled_at TEXT,
    locale TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  ) STRICT`,
  "CREATE UNIQUE INDEX users_email_idx ON users (email)",
  `CREATE TABLE roles (
    id TEXT PRIMARY KEY NOT NULL,
    name TEXT NOT NULL,
    description TEXT,
    scope TEXT NOT NULL DEFAULT 'global',
    built_in INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  ) STRICT`,
  "CREATE UNIQUE INDEX roles_scope_name_idx ON roles (scope, name)",
  `CREATE TABLE role_permissions (
    role_id TEXT NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
    resource TEXT NOT NULL,
    access TEXT NOT NULL,
    PRIMARY KEY (role_id, resource)
  ) STRICT`,
  `CREATE TABLE actor_roles (
    actor_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    role_id TEXT NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (actor_id, role_id)
  ) STRICT`,
  "CREATE INDEX actor_roles_role_id_idx ON actor_roles (role_id)",
  `CREATE TABLE oauth_apps (
    id TEXT PRIMARY KEY NOT NULL,
    name TEXT NOT NULL,
    website TEXT,
    redirect_uris TEXT NOT NULL,
    scopes TEXT NOT NULL,
    client_id TEXT NOT NULL,
    client_secret_hash TEXT NOT NULL,
    created_at TEXT NOT NULL
  ) STRICT`,
  "CREATE UNIQUE INDEX oauth_apps_client_id_idx ON oauth_apps (client_id)",
  `CREATE TABLE sessions (
    id TEXT PRIMARY KEY NOT NULL,
    account_id TEXT REFERENCES accounts (id) ON DELETE CASCADE,
    app_id TEXT REFERENCES oauth_apps (id) ON DELETE CASCADE,
    token_hash TEXT NOT NULL,
    refresh_token_hash TEXT,
    scopes TEXT NOT NULL,
    user_agent TEXT,
    ip TEXT,
    created_at TEXT NOT NULL,
    last_used_at TEXT,
    expires_at TEXT,
    revoked_at TEXT
  ) STRICT`,
  "CREATE UNIQUE INDEX sessions_token_hash_idx ON sessions (token_hash)",
  "CREATE UNIQUE INDEX sessions_refresh_token_hash_idx ON sessions (refresh_token_hash)",
  "CREATE INDEX sessions_account_id_idx ON sessions (account_id)",
  `CREATE TABLE instance_settings (
    key TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL,
    updated_at TEXT NOT NULL
  ) STRICT`,
  `CREATE TABLE one_time_secrets (
    id TEXT PRIMARY KEY NOT NULL,
    kind TEXT NOT NULL,
    secret_hash TEXT NOT NULL,
    subject_id TEXT,
    payload TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    expires_at TEXT NOT NULL,
    consumed_at TEXT,
    created_at TEXT NOT NULL
  ) STRICT`,
  "CREATE UNIQUE INDEX one_time_secrets_kind_hash_idx ON one_time_secrets (kind, secret_hash)",
  "CREATE INDEX one_time_secrets_subject_idx ON one_time_secrets (subject_id)",
  `CREATE TABLE rate_counters (
    key TEXT PRIMARY KEY NOT NULL,
    count INTEGER NOT NULL,
    window_ends_at TEXT NOT NULL
  ) STRICT`,
];

// biome-ignore lint/suspicious/noExplicitAny: a migration sees the schema of its own time.
export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
  await seedBuiltInRoles(db);
}
