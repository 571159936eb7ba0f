import type { ColumnType, Generated, Insertable, Selectable, Updateable } from "kysely";
import type { StoredJobState } from "../queue/job-status.js";

/**
 * The database schema as Kysely sees it, shared by every SQL adapter.
 *
 * Conventions both adapters hold to, so repositories are written once:
 * - timestamps are ISO 8601 strings in UTC with milliseconds (`TEXT` in
 *   SQLite, `timestamptz` in PostgreSQL, read back as the same ISO string);
 * - JSON is written as a string and read back as a string (`TEXT` / `jsonb`);
 * - booleans are written as booleans and read back as booleans or 0/1, so
 *   rows are read through `toBool`.
 */
export type Timestamp = string;
export type JsonText = string;
export type DbBool = ColumnType<boolean | number, boolean, boolean>;

export interface AccountsTable {
  id: string;
  username: string;
  /** Null for local accounts; the lower-cased host for remote ones. */
  domain: string | null;
  /** `username` lower-cased, `@domain` appended for remote accounts; unique. */
  acct_key: string;
  display_name: string;
  note: string;
  /** ActivityPub actor type: Person, Service (bots) or Group. */
  actor_type: string;
  locked: DbBool;
  discoverable: DbBool;
  /** ActivityPub id; null for local accounts, whose URI derives from the origin. */
  uri: string | null;
  url: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  suspended_at: Timestamp | null;
  silenced_at: Timestamp | null;
  /** When an administrator marked the account sensitive (migration 0004); null when not. */
  sensitized_at: Timestamp | null;
}

export interface UsersTable {
  account_id: string;
  email: string;
  email_confirmed_at: Timestamp | null;
  password_hash: string | null;
  approved: DbBool;
  disabled_at: Timestamp | null;
  locale: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** What the person wrote when signing up in approval mode (Mastodon's `reason`). */
  signup_reason: string | null;
}

export interface RolesTable {
  id: string;
  name: string;
  description: string | null;
  /** 'global' or a group id. */
  scope: string;
  built_in: DbBool;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface RolePermissionsTable {
  role_id: string;
  resource: string;
  /** JSON array of access types. */
  access: JsonText;
}

export interface ActorRolesTable {
  actor_id: string;
  role_id: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface OAuthAppsTable {
  id: string;
  name: string;
  website: string | null;
  /** JSON array of redirect URIs. */
  redirect_uris: JsonText;
  scopes: string;
  client_id: string;
  client_secret_hash: string;
  created_at: Timestamp;
}

export interface SessionsTable {
  id: string;
  /** Null for app-only (client_credentials) tokens. */
  account_id: string | null;
  app_id: string | null;
  token_hash: string;
  refresh_token_hash: string | null;
  scopes: string;
  user_agent: string | null;
  ip: string | null;
  created_at: Timestamp;
  last_used_at: Timestamp | null;
  expires_at: Timestamp | null;
  revoked_at: Timestamp | null;
}

export interface InstanceSettingsTable {
  key: string;
  value: JsonText;
  updated_at: Timestamp;
}

export interface OneTimeSecretsTable {
  id: string;
  kind: string;
  secret_hash: string;
  subject_id: string | null;
  payload: JsonText | null;
  attempts: Generated<number>;
  expires_at: Timestamp;
  consumed_at: Timestamp | null;
  created_at: Timestamp;
}

/** The email-domain allowlist: when the setting is on, only these domains (and their subdomains) may register. */
export interface EmailDomainAllowsTable {
  /** Lower-case, ASCII (IDNs as punycode), no trailing dot. */
  domain: string;
  created_at: Timestamp;
}

export interface RateCountersTable {
  key: string;
  count: number;
  window_ends_at: Timestamp;
}

/** One job of the durable SQL queue (`queue/sql-queue.ts`). */
export interface JobsTable {
  /** A `jb_` id: time-ordered, so "newest first" is "id descending". */
  id: string;
  queue: string;
  /** `waiting`, `active`, `finished`, `failed` or `dlq`; the API's finer statuses derive from it (`queue/job-status.ts`). */
  state: StoredJobState;
  /** JSON as text, also in PostgreSQL: a dead-letter payload may be text that does not parse. */
  payload: string;
  /** Attempts started so far. */
  tries: number;
  max_attempts: number;
  backoff_base_ms: number;
  backoff_max_ms: number;
  /** When a waiting job may run next. */
  run_at: Timestamp;
  deduplication_key: string | null;
  ordering_key: string | null;
  /** The worker process holding an active job. */
  locked_by: string | null;
  /** When an active job's lease ends; past it, the job is taken up again (its worker is presumed dead). */
  locked_until: Timestamp | null;
  last_error: string | null;
  created_at: Timestamp;
  started_at: Timestamp | null;
  finished_at: Timestamp | null;
  updated_at: Timestamp;
}

/** Per-queue settings an administrator may change while workers run. */
export interface JobQueuesTable {
  name: string;
  description: string;
  max_retries: number;
  concurrency: number;
  enabled: DbBool;
  updated_at: Timestamp;
}

/** Repeating jobs: whichever process sees `next_run_at` pass advances it and enqueues one run. */
export interface JobSchedulesTable {
  name: string;
  queue: string;
  every_ms: number;
  payload: JsonText;
  next_run_at: Timestamp;
  updated_at: Timestamp;
}

/** Worker processes and their last heartbeat. */
export interface JobProcessesTable {
  id: string;
  hostname: string;
  pid: number;
  started_at: Timestamp;
  last_heartbeat_at: Timestamp;
}

/** Finished and failed jobs per UTC day and queue. */
export interface JobDailyStatsTable {
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  queue: string;
  finished: number;
  failed: number;
}

/**
 * Jobs written in the caller's transaction for a queue backend outside the
 * database (Redis), relayed to it after commit and then deleted.
 */
export interface JobOutboxTable {
  id: string;
  queue: string;
  /** JSON as text. */
  payload: string;
  /** JSON of the enqueue options, without `db`. */
  options: string;
  created_at: Timestamp;
}

export interface Database {
  accounts: AccountsTable;
  users: UsersTable;
  roles: RolesTable;
  role_permissions: RolePermissionsTable;
  actor_roles: ActorRolesTable;
  oauth_apps: OAuthAppsTable;
  sessions: SessionsTable;
  instance_settings: InstanceSettingsTable;
  one_time_secrets: OneTimeSecretsTable;
  rate_counters: RateCountersTable;
  email_domain_allows: EmailDomainAllowsTable;
  jobs: JobsTable;
  job_queues: JobQueuesTable;
  job_schedules: JobSchedulesTable;
  job_processes: JobProcessesTable;
  job_daily_stats: JobDailyStatsTable;
  job_outbox: JobOutboxTable;
}

export type AccountRow = Selectable<AccountsTable>;
export type NewAccountRow = Insertable<AccountsTable>;
export type AccountUpdate = Updateable<AccountsTable>;
export type UserRow = Selectable<UsersTable>;
export type NewUserRow = Insertable<UsersTable>;
export type RoleRow = Selectable<RolesTable>;
export type SessionRow = Selectable<SessionsTable>;
export type OneTimeSecretRow = Selectable<OneTimeSecretsTable>;
export type JobRow = Selectable<JobsTable>;
export type JobQueueRow = Selectable<JobQueuesTable>;
export type JobScheduleRow = Selectable<JobSchedulesTable>;
export type JobProcessRow = Selectable<JobProcessesTable>;
export type JobOutboxRow = Selectable<JobOutboxTable>;

/** Reads a boolean column the same way on every engine. */
export function toBool(value: boolean | number | null | undefined): boolean {
  return value === true || value === 1;
}
