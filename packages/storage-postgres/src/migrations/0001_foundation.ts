import { type Kysely, sql } from "kysely";
import { seedBuiltInRoles } from "@kith/core";

/**
 * Accounts and their logins, roles and permissions, OAuth apps and sessions,
 * server settings, one-time secrets and rate counters. Timestamps are
 * timestamptz, flags boolean, JSON jsonb (read back as text by the adapter's
 * type parsers). Keep in step with the SQLite migration of the same number: a
 * test compares the two schemas (tables, columns, nullability, keys, indexes).
 */
const statements = [
  `CREATE TABLE accounts (
    id text PRIMARY KEY NOT NULL,
    username text NOT NULL,
    domain text,
    acct_key text NOT NULL,
    display_name text NOT NULL DEFAULT '',
    note text NOT NULL DEFAULT '',
    actor_type text NOT NULL DEFAULT 'Person',
    locked boolean NOT NULL DEFAULT false,
    discoverable boolean NOT NULL DEFAULT true,
    uri text,
    url text,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    suspended_at timestamptz,
    silenced_at timestamptz
  )`,
  "CREATE UNIQUE INDEX accounts_acct_key_idx ON accounts (acct_key)",
  "CREATE UNIQUE INDEX accounts_uri_idx ON accounts (uri)",
  "CREATE INDEX accounts_domain_idx ON accounts (domain)",
  `CREATE TABLE users (
    account_id text PRIMARY KEY NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    email text NOT NULL,
    email_confirmed_at timestamptz,
    password_hash text,
    approved boolean NOT NULL DEFAULT true,
    disabled_at timestamptz,
    locale text,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
  )`,
  "CREATE UNIQUE INDEX users_email_idx ON users (email)",
  `CREATE TABLE roles (
    id text PRIMARY KEY NOT NULL,
    name text NOT NULL,
    description text,
    scope text NOT NULL DEFAULT 'global',
    built_in boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
  )`,
  "CREATE UNIQUE INDEX roles_scope_name_idx ON roles (scope, name)",
  `CREATE TABLE role_permissions (
    role_id text NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
    resource text NOT NULL,
    access jsonb NOT NULL,
    PRIMARY KEY (role_id, resource)
  )`,
  `CREATE TABLE actor_roles (
    actor_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    role_id text NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (actor_id, role_id)
  )`,
  "CREATE INDEX actor_roles_role_id_idx ON actor_roles (role_id)",
  `CREATE TABLE oauth_apps (
    id text PRIMARY KEY NOT NULL,
    name text NOT NULL,
    website text,
    redirect_uris jsonb NOT NULL,
    scopes text NOT NULL,
    client_id text NOT NULL,
    client_secret_hash text NOT NULL,
    created_at timestamptz NOT NULL
  )`,
  "CREATE UNIQUE INDEX oauth_apps_client_id_idx ON oauth_apps (client_id)",
  `CREATE TABLE sessions (
    id text PRIMARY KEY NOT NULL,
    account_id text REFERENCES accounts (id) ON DELETE CASCADE,
    app_id text REFERENCES oauth_apps (id) ON DELETE CASCADE,
    token_hash text NOT NULL,
    refresh_token_hash text,
    scopes text NOT NULL,
    user_agent text,
    ip text,
    created_at timestamptz NOT NULL,
    last_used_at timestamptz,
    expires_at timestamptz,
    revoked_at timestamptz
  )`,
  "CREATE UNIQUE INDEX sessions_token_hash_idx ON sessions (token_hash)",
  "CREATE UNIQUE INDEX sessions_refresh_token_hash_idx ON sessions (refresh_token_hash)",
  "CREATE INDEX sessions_account_id_idx ON sessions (account_id)",
  `CREATE TABLE instance_settings (
    key text PRIMARY KEY NOT NULL,
    value jsonb NOT NULL,
    updated_at timestamptz NOT NULL
  )`,
  `CREATE TABLE one_time_secrets (
    id text PRIMARY KEY NOT NULL,
    kind text NOT NULL,
    secret_hash text NOT NULL,
    subject_id text,
    payload jsonb,
    attempts integer NOT NULL DEFAULT 0,
    expires_at timestamptz NOT NULL,
    consumed_at timestamptz,
    created_at timestamptz NOT NULL
  )`,
  "CREATE UNIQUE INDEX one_time_secrets_kind_hash_idx ON one_time_secrets (kind, secret_hash)",
  "CREATE INDEX one_time_secrets_subject_idx ON one_time_secrets (subject_id)",
  `CREATE TABLE rate_counters (
    key text PRIMARY KEY NOT NULL,
    count integer NOT NULL,
    window_ends_at timestamptz NOT NULL
  )`,
];

// biome-ignore lint/suspicious/noExplicitAny: a migration sees the schema of its own time.
export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
  await seedBuiltInRoles(db);
}
