import type { ColumnType, Generated, Insertable, Selectable, Updateable } from "kysely";

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
  /** JSON array of `{ name, value, verified_at }` profile fields (migration 0005 on). */
  fields: Generated<JsonText>;
  avatar_media_id: string | null;
  header_media_id: string | null;
  avatar_remote_url: string | null;
  header_remote_url: string | null;
  hide_collections: Generated<DbBool>;
  statuses_count: Generated<number>;
  followers_count: Generated<number>;
  following_count: Generated<number>;
  last_status_at: Timestamp | null;
  moved_to_account_id: string | null;
  /** JSON array of actor URIs this account says it also is (account migration). */
  also_known_as: Generated<JsonText>;
  /** A remote actor's inbox and its server's shared inbox (migration 0012); null for local accounts. */
  inbox_url: Generated<string | null>;
  shared_inbox_url: Generated<string | null>;
  /** The plain-text source of a local account's note (migration 0011); `note` holds the rendered HTML. */
  note_source: Generated<string | null>;
  /** Whether the account's public statuses may be indexed by search (migration 0011). */
  indexable: DbBoolWithDefault;
  /**
   * Raised by the database itself (migration 0020's triggers) by every update that names a column but the counters
   * and `last_status_at`, so a row kept in memory is still the row while its version is the same (kept-rows.ts).
   */
  version: Generated<number>;
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
  /** Posting defaults and reading preferences (`/api/v1/preferences`). */
  default_visibility: Generated<string>;
  default_sensitive: Generated<DbBool>;
  default_language: string | null;
  expand_media: Generated<string>;
  expand_spoilers: Generated<DbBool>;
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

/** The secret key a server keeps itself when none is configured (migration 0028). */
export interface ServerSecretKeysTable {
  name: string;
  secret: string;
  created_at: Timestamp;
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

/** The state a job row keeps; the API's finer statuses derive from it (`platform/queue/job-status.ts`). */
export type StoredJobState = "waiting" | "active" | "finished" | "failed" | "dlq";

/** One job of the durable SQL queue (`platform/queue/sql-queue.ts`). */
export interface JobsTable {
  /** A `jb_` id: time-ordered, so "newest first" is "id descending". */
  id: string;
  queue: string;
  /** `waiting`, `active`, `finished`, `failed` or `dlq`; the API's finer statuses derive from it (`platform/queue/job-status.ts`). */
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

// The social core (migration 0005; described in storage/migrations/0005-social.ts).

/** A request to follow; a follow has the same columns and one more. */
export interface FollowRequestsTable {
  id: string;
  account_id: string;
  target_account_id: string;
  show_reblogs: Generated<DbBool>;
  notify: Generated<DbBool>;
  /** JSON array of language codes, or null for all. */
  languages: JsonText | null;
  uri: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface FollowsTable extends FollowRequestsTable {
  /**
   * Whether the follower is a local account (migration 0022), the second
   * column of the followers' index, which holds local and remote followers
   * apart. Required on insert: write it with `followerIsLocal`
   * (modules/relationships/relationships-store.ts).
   */
  follower_local: DbBool;
}

export interface BlocksTable {
  id: string;
  account_id: string;
  target_account_id: string;
  uri: string | null;
  created_at: Timestamp;
}

export interface MutesTable {
  id: string;
  account_id: string;
  target_account_id: string;
  hide_notifications: Generated<DbBool>;
  expires_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface AccountDomainBlocksTable {
  id: string;
  account_id: string;
  domain: string;
  created_at: Timestamp;
}

export interface AccountNotesTable {
  account_id: string;
  target_account_id: string;
  comment: string;
  updated_at: Timestamp;
}

export type Visibility = "public" | "unlisted" | "private" | "direct";

export interface StatusesTable {
  id: string;
  account_id: string;
  /** ActivityPub id; null for local statuses, whose URI derives from the origin. */
  uri: string | null;
  url: string | null;
  local: Generated<DbBool>;
  in_reply_to_id: string | null;
  in_reply_to_account_id: string | null;
  reblog_of_id: string | null;
  conversation_id: string | null;
  /** The source as written; `content` is the rendered, sanitised HTML. */
  text: Generated<string>;
  content: Generated<string>;
  spoiler_text: Generated<string>;
  sensitive: Generated<DbBool>;
  visibility: Generated<Visibility>;
  language: string | null;
  application_id: string | null;
  replies_count: Generated<number>;
  reblogs_count: Generated<number>;
  favourites_count: Generated<number>;
  created_at: Timestamp;
  /**
   * Set by every write of the row but its three counters (an edit, which may change text, content, spoiler_text,
   * sensitive, language and edited_at; no other column changes after the insert). Renderers keep what they made of a
   * row by `version` below, which two edits in the same millisecond cannot leave as it was.
   */
  updated_at: Timestamp;
  edited_at: Timestamp | null;
  /**
   * Raised by the database itself (migration 0020's triggers) by every update that names a column but the three
   * counters, so a row kept in memory is still the row while its version is the same (kept-rows.ts), and so is what
   * was made of it (status-parts-cache.ts, StatusViews' JSON pieces).
   */
  version: Generated<number>;
  /** The status this one quotes, as its author's server names it (migration 0024). */
  quote_uri: string | null;
  /** That status, once it is known here. */
  quote_id: string | null;
  /** Where the quote stands: `pending`, `accepted`, `rejected`, `revoked` (migration 0029); null reads as accepted. */
  quote_state: string | null;
  /** Who may quote this status: `public`, `followers`, `nobody`, or `manual` (another server's); null: nobody. */
  quote_policy: string | null;
  /** The QuoteAuthorization stamp (FEP-044f) another server gave this status's quote. */
  quote_authorization: string | null;
  /** Accepted quotes of this status: unlike the other counters, it raises the version (migration 0029). */
  quotes_count: Generated<number>;
}

export interface StatusEditsTable {
  id: string;
  status_id: string;
  account_id: string;
  text: string;
  content: string;
  spoiler_text: string;
  sensitive: Generated<DbBool>;
  /** JSON array of media attachment ids. */
  media_ids: Generated<JsonText>;
  /** JSON array of poll option titles, or null. */
  poll_options: JsonText | null;
  created_at: Timestamp;
}

/** A `direct` status's closed audience (migration 0026): its members see it as if mentioned. */
export interface StatusAudiencesTable {
  status_id: string;
  audience_id: string;
}

export interface AudienceMembersTable {
  audience_id: string;
  account_id: string;
}

export interface MentionsTable {
  status_id: string;
  account_id: string;
  silent: Generated<DbBool>;
  created_at: Timestamp;
}

export interface TagsTable {
  id: string;
  /** Lower-cased, NFKC-normalised; unique. */
  name: string;
  display_name: string;
  usable: Generated<DbBool>;
  trendable: Generated<DbBool>;
  listable: Generated<DbBool>;
  last_status_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface StatusTagsTable {
  tag_id: string;
  status_id: string;
}

export interface FavouritesTable {
  id: string;
  account_id: string;
  status_id: string;
  uri: string | null;
  created_at: Timestamp;
}

export interface BookmarksTable {
  id: string;
  account_id: string;
  status_id: string;
  created_at: Timestamp;
}

export interface StatusPinsTable {
  id: string;
  account_id: string;
  status_id: string;
  created_at: Timestamp;
}

/** A reply pinned under its root status by the root's author. */
export interface StatusHighlightsTable {
  id: string;
  root_status_id: string;
  status_id: string;
  account_id: string;
  created_at: Timestamp;
}

export interface StatusSubscriptionsTable {
  id: string;
  account_id: string;
  status_id: string;
  created_at: Timestamp;
}

export interface ConversationMutesTable {
  account_id: string;
  conversation_id: string;
  created_at: Timestamp;
}

export interface PollsTable {
  id: string;
  status_id: string;
  account_id: string;
  /** JSON array of option titles. */
  options: JsonText;
  /** JSON array of vote counts, one per option. */
  cached_tallies: JsonText;
  multiple: Generated<DbBool>;
  hide_totals: Generated<DbBool>;
  votes_count: Generated<number>;
  voters_count: Generated<number>;
  expires_at: Timestamp | null;
  closed_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface PollVotesTable {
  id: string;
  poll_id: string;
  account_id: string;
  choice: number;
  uri: string | null;
  created_at: Timestamp;
}

export type UploadState = "awaiting_upload" | "submitted" | "in_progress" | "completed" | "failed" | "unsupported";

export interface MediaAttachmentsTable {
  id: string;
  account_id: string;
  status_id: string | null;
  /** Mastodon's media type: image, gifv, video, audio or unknown. */
  type: Generated<string>;
  /** The spec's upload type: IMAGE, VIDEO, AUDIO or DOCUMENT. */
  upload_type: string;
  /** JSON array of tags such as Avatar, Header, Status. */
  tags: Generated<JsonText>;
  state: UploadState;
  content_type: string | null;
  declared_content_type: string | null;
  /** The client's file name, for display only: never part of a storage key. */
  file_name: string | null;
  size_bytes: Generated<number>;
  original_key: string | null;
  file_key: string | null;
  thumbnail_key: string | null;
  /** JSON: Mastodon's `meta`. */
  meta: Generated<JsonText>;
  blurhash: string | null;
  description: string | null;
  remote_url: string | null;
  error: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  processed_at: Timestamp | null;
  /** When the content arrived (migration 0007). */
  submitted_at: Timestamp | null;
  /** When processing started (migration 0007). */
  started_at: Timestamp | null;
  /** How long processing took, once it ended (migration 0007). */
  processing_ms: number | null;
  /** A custom preview was given; processing keeps it (migration 0007). */
  custom_thumbnail: ColumnType<boolean | number, boolean | undefined, boolean>;
}

/** The hashed token of an upload's PUT URL (migration 0007). */
export interface UploadTokensTable {
  upload_id: string;
  account_id: string;
  token_hash: string;
  expires_at: Timestamp;
  created_at: Timestamp;
}

/** One workflow step of an upload's processing (migration 0007). */
export interface UploadLogsTable {
  id: string;
  upload_id: string;
  step: string;
  /** started, succeeded, failed or skipped. */
  outcome: string;
  message: string | null;
  created_at: Timestamp;
}

/** A user's own storage limits; null columns fall back to the server's defaults (migration 0007). */
export interface StorageQuotasTable {
  account_id: string;
  max_bytes: number | null;
  max_files: number | null;
  updated_at: Timestamp;
}

export interface HomeFeedTable {
  account_id: string;
  status_id: string;
  author_id: string;
  reblog_of_id: string | null;
  created_at: Timestamp;
}

/** A new local status whose reactions are not all done yet (migration 0019). */
export interface PendingStatusReactionsTable {
  status_id: string;
  created_at: Timestamp;
}

export interface ListsTable {
  id: string;
  account_id: string;
  title: string;
  replies_policy: Generated<string>;
  exclusive: Generated<DbBool>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ListAccountsTable {
  list_id: string;
  account_id: string;
  created_at: Timestamp;
}

export interface MarkersTable {
  account_id: string;
  timeline: string;
  last_read_id: string;
  version: Generated<number>;
  updated_at: Timestamp;
}

export interface AccountConversationsTable {
  id: string;
  account_id: string;
  conversation_id: string;
  participant_ids: Generated<JsonText>;
  last_status_id: string | null;
  unread: Generated<DbBool>;
  updated_at: Timestamp;
}

export interface NotificationsTable {
  id: string;
  account_id: string;
  from_account_id: string;
  type: string;
  status_id: string | null;
  group_key: string;
  read_at: Timestamp | null;
  created_at: Timestamp;
  /** Held back by the recipient's notification policy, as part of a notification request. */
  filtered: Generated<DbBool>;
}

export interface NotificationPoliciesTable {
  account_id: string;
  for_not_following: string | null;
  for_not_followers: string | null;
  for_new_accounts: string | null;
  for_private_mentions: string | null;
  for_limited_accounts: string | null;
  updated_at: Timestamp;
}

export interface NotificationPermissionsTable {
  account_id: string;
  from_account_id: string;
  created_at: Timestamp;
}

export interface FiltersTable {
  id: string;
  account_id: string;
  title: string;
  context: Generated<JsonText>;
  filter_action: Generated<string>;
  expires_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface FilterKeywordsTable {
  id: string;
  filter_id: string;
  keyword: string;
  whole_word: Generated<DbBool>;
  created_at: Timestamp;
}

export interface FilterStatusesTable {
  id: string;
  filter_id: string;
  status_id: string;
  created_at: Timestamp;
}

export interface TagFollowsTable {
  id: string;
  account_id: string;
  tag_id: string;
  created_at: Timestamp;
}

export interface CustomEmojisTable {
  id: string;
  shortcode: string;
  domain: string | null;
  image_media_id: string | null;
  image_remote_url: string | null;
  uri: string | null;
  visible_in_picker: Generated<DbBool>;
  category: string | null;
  disabled: Generated<DbBool>;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** The image in the blob store, for this server's emojis (migration 0024). */
  image_key: string | null;
  /** A still rendition of an animated image; null when the image is still. */
  static_key: string | null;
  image_content_type: string | null;
  image_size: number | null;
}

/** An emoji reaction to a status (migration 0024). */
export interface StatusReactionsTable {
  id: string;
  status_id: string;
  account_id: string;
  /** A Unicode emoji as written, or a custom emoji's shortcode without colons. */
  name: string;
  custom_emoji_id: string | null;
  /** The id of the reaction's activity. */
  uri: string | null;
  created_at: Timestamp;
}

/** A report another server sent (a `Flag`), kept for moderation (migration 0024). */
export interface ReceivedFlagsTable {
  id: string;
  account_id: string;
  target_account_id: string;
  status_ids: Generated<JsonText>;
  comment: Generated<string>;
  uri: string | null;
  created_at: Timestamp;
}

/** What a received `Event` says beyond the post it is shown as (migration 0024). */
export interface RemoteEventsTable {
  status_id: string;
  name: string;
  starts_at: Timestamp | null;
  ends_at: Timestamp | null;
  location: string | null;
  url: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface IdempotencyKeysTable {
  account_id: string;
  key: string;
  status_id: string;
  created_at: Timestamp;
}

/** Fedify's key-value store (migration 0012): cache, idempotence, signature-spec memory. */
export interface FederationKvTable {
  /** The Fedify key as a JSON array of strings. */
  key: string;
  value: string;
  expires_at: Timestamp | null;
}

/** Key pairs of local actors (migration 0012), created on first need. */
export interface ActorKeyPairsTable {
  /** An account id, or `instance` for the instance actor. */
  owner_id: string;
  /** RSASSA-PKCS1-v1_5 or Ed25519. */
  algorithm: string;
  public_jwk: string;
  private_jwk: string;
  created_at: Timestamp;
}

/** A boolean column with a default: optional on insert. */
export type DbBoolWithDefault = ColumnType<boolean | number, boolean | undefined, boolean>;

/** Administrators' domain blocks (migration 0012); a block covers the domain's subdomains. */
export interface DomainBlocksTable {
  id: string;
  domain: string;
  /** SUSPEND, LIMIT or NOOP. */
  severity: string;
  reject_media: DbBoolWithDefault;
  reject_reports: DbBoolWithDefault;
  private_comment: string | null;
  public_comment: string | null;
  obfuscate: DbBoolWithDefault;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** The domain allowlist (migration 0012): when the setting is on, only these domains (and subdomains) federate. */
export interface DomainAllowsTable {
  id: string;
  domain: string;
  created_at: Timestamp;
}

/** Outbound delivery outcomes per remote domain (migration 0015). */
export interface FederationDomainDeliveriesTable {
  domain: string;
  succeeded: Generated<number>;
  failed: Generated<number>;
  last_success_at: Timestamp | null;
  last_failure_at: Timestamp | null;
  /** YYYY-MM-DD (UTC) of the last failure. */
  last_failure_day: string | null;
  /** Distinct days with a failure since the last success. */
  failure_days: Generated<number>;
  unreachable_since: Timestamp | null;
}

/** Incoming activities per remote domain and minute (migration 0015), the sliding window of inbox metrics. */
export interface FederationInboxMinutesTable {
  domain: string;
  minute: Timestamp;
  received: Generated<number>;
}

/** A local user's phone number, a login identifier beside the email address (migration 0006). */
export interface UserPhonesTable {
  account_id: string;
  /** E.164. */
  phone: string;
  verified_at: Timestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A WebAuthn credential (passkey) of a local user (migration 0006). */
export interface PasskeyCredentialsTable {
  id: string;
  /** base64url, as the authenticator reports it. */
  credential_id: string;
  account_id: string;
  /** base64url COSE public key. */
  public_key_cose: string;
  public_key_alg: number;
  aaguid: string;
  sign_count: ColumnType<number | string, number, number>;
  transports: Generated<JsonText>;
  created_at: Timestamp;
  last_used_at: Timestamp | null;
}

/** Changes to a user's login methods and credentials, for the user and administrators (migration 0006). */
export interface LoginAuditLogTable {
  id: string;
  account_id: string;
  action: string;
  method: string;
  detail: string | null;
  ip: string | null;
  created_at: Timestamp;
}

/** A new password kept aside (hashed) until the change's emailed code is confirmed (migration 0006). */
export interface PendingPasswordChangesTable {
  account_id: string;
  password_hash: string;
  created_at: Timestamp;
  expires_at: Timestamp;
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
  server_secret_keys: ServerSecretKeysTable;
  user_phones: UserPhonesTable;
  passkey_credentials: PasskeyCredentialsTable;
  login_audit_log: LoginAuditLogTable;
  pending_password_changes: PendingPasswordChangesTable;
  rate_counters: RateCountersTable;
  email_domain_allows: EmailDomainAllowsTable;
  jobs: JobsTable;
  job_queues: JobQueuesTable;
  job_schedules: JobSchedulesTable;
  job_processes: JobProcessesTable;
  job_daily_stats: JobDailyStatsTable;
  job_outbox: JobOutboxTable;
  follows: FollowsTable;
  follow_requests: FollowRequestsTable;
  blocks: BlocksTable;
  mutes: MutesTable;
  account_domain_blocks: AccountDomainBlocksTable;
  account_notes: AccountNotesTable;
  statuses: StatusesTable;
  status_edits: StatusEditsTable;
  mentions: MentionsTable;
  status_audiences: StatusAudiencesTable;
  audience_members: AudienceMembersTable;
  tags: TagsTable;
  status_tags: StatusTagsTable;
  favourites: FavouritesTable;
  bookmarks: BookmarksTable;
  status_pins: StatusPinsTable;
  status_highlights: StatusHighlightsTable;
  status_subscriptions: StatusSubscriptionsTable;
  conversation_mutes: ConversationMutesTable;
  polls: PollsTable;
  poll_votes: PollVotesTable;
  media_attachments: MediaAttachmentsTable;
  upload_tokens: UploadTokensTable;
  upload_logs: UploadLogsTable;
  storage_quotas: StorageQuotasTable;
  home_feed: HomeFeedTable;
  pending_post_reactions: PendingStatusReactionsTable;
  lists: ListsTable;
  list_accounts: ListAccountsTable;
  markers: MarkersTable;
  account_conversations: AccountConversationsTable;
  notifications: NotificationsTable;
  notification_policies: NotificationPoliciesTable;
  notification_permissions: NotificationPermissionsTable;
  filters: FiltersTable;
  filter_keywords: FilterKeywordsTable;
  filter_statuses: FilterStatusesTable;
  tag_follows: TagFollowsTable;
  custom_emojis: CustomEmojisTable;
  status_reactions: StatusReactionsTable;
  received_flags: ReceivedFlagsTable;
  remote_events: RemoteEventsTable;
  idempotency_keys: IdempotencyKeysTable;
  federation_kv: FederationKvTable;
  actor_key_pairs: ActorKeyPairsTable;
  domain_blocks: DomainBlocksTable;
  domain_allows: DomainAllowsTable;
  federation_domain_deliveries: FederationDomainDeliveriesTable;
  federation_inbox_minutes: FederationInboxMinutesTable;
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
export type StatusRow = Selectable<StatusesTable>;
export type CustomEmojiRow = Selectable<CustomEmojisTable>;
export type MediaAttachmentRow = Selectable<MediaAttachmentsTable>;
export type NotificationRow = Selectable<NotificationsTable>;
export type PollRow = Selectable<PollsTable>;

/** Reads a boolean column the same way on every engine. */
export function toBool(value: boolean | number | null | undefined): boolean {
  return value === true || value === 1;
}
