/**
 * `@kith/core`: what an embedder and an adapter author use. Test helpers and
 * the contract suites are in `@kith/core/testing`; everything else in this
 * package is internal and may change without notice.
 */

// Embedding: assemble Kith from adapters, configure it, log beside it.
export { createKith, type CreateKithOptions, type Kith, type QueueFactory, type QueueFactoryDeps } from "./kith.js";
export type { KithConfig, KithConfigInput } from "./config.js";
export { getLogger, type Logger } from "./logging.js";
export type { KithServices, ServiceDeps } from "./modules/core-services.js";
export type { FetchHandler, FallbackHandler, RequestInfo } from "./platform/http/fetch-handler.js";
export type { KithFederation } from "./modules/federation/kith-federation.js";
export type { FederationContextData } from "./platform/federation/federation-context-data.js";
export type { DeferredFederation } from "./modules/federation/deferred-federation.js";
/** Outgoing federation requests refuse private addresses; `federationFetch` takes one made to allow them (a test network). */
export {
  OutgoingFetchError,
  type SafeFetch,
  type SafeFetchInit,
  type SafeFetchOptions,
  createSafeFetch,
} from "./platform/federation/safe-fetch.js";

// Routes, as a module declares them.
export type { RouteDefinition, AnyRoute, HandlerContext, ForbiddenContext, HttpMethod } from "./platform/http/route.js";
export { route } from "./modules/core-route.js";
export * from "./platform/http/access.js";
export { Reply } from "./platform/http/reply.js";
export {
  idPageQuery,
  cursorPageQuery,
  type PageSize,
  POSTS_PAGE,
  ACCOUNTS_PAGE,
  DEFAULT_PAGE,
  clampLimit,
  pageRequest,
  idPageLinks,
  cursorPageLinks,
  pagedReply,
} from "./platform/http/pagination.js";

// Ports, their value types, and the schema the storage port's database has.
export type * from "./ports/index.js";
export type * from "./ports/storage-schema.js";
export type * from "./ports/migration-spec.js";

// Storage adapters: core's migrations, their rendering per engine, and the base of Kysely-backed adapters.
export { coreMigrations } from "./storage/migrations/core-migrations.js";
export { migrationStatements } from "./storage/migrations/ddl.js";
export { KyselyStorage } from "./platform/storage/kysely-storage.js";
export { afterCommit, transactionWithCommitHooks } from "./platform/storage/commit-hooks.js";

// Domain: ids, errors, permissions and the rules shared by services and callers.
export { ID_PREFIXES, type IdKind, type IdPrefix, isId, idTime, lowestIdAt, defineIdKinds, type ModuleIdKind } from "./domain/ids.js";
export * from "./domain/errors.js";
export { errorCatalog, defineErrorCodes, type ErrorCode, type ErrorEntry, type ModuleErrorCode } from "./domain/error-catalog.js";
export * from "./domain/permissions.js";
export * from "./domain/scopes.js";
export * from "./domain/accounts.js";
export * from "./domain/caller.js";
export * from "./domain/limits.js";
export * from "./domain/instance-settings.js";
export { RESOURCES, BUILT_IN_ROLES, GROUP_BUILT_IN_ROLES, type ResourceName } from "./domain/resources.js";
export type { PageRequest } from "./domain/page.js";

// Feature modules: the contract, the built-in modules (an embedder may leave optional ones out), and what a
// module's code uses beside the route API above.
export {
  defineModule,
  moduleRoute,
  type KithModule,
  type ModuleContext,
  type ModuleFederation,
  type ModuleVocabulary,
  type ModuleJob,
  type ModuleHandlerContext,
  type ModuleRouteDefinition,
  type ModuleForbiddenContext,
  type GroupAppDeclaration,
} from "./modules/module.js";
export { defaultModules } from "./modules/default-modules.js";
export { migrationsWithModules } from "./modules/composed-modules.js";
export { pendingMigrations } from "./storage/migrator.js";
export { preferencesModule } from "./modules/preferences/index.js";
export { customEmojisModule } from "./modules/custom-emojis/index.js";
export { trendsModule } from "./modules/trends/index.js";
export { suggestionsModule } from "./modules/suggestions/index.js";
export { relaysModule } from "./modules/relays/index.js";
export { scheduledStatusesModule, type ScheduledStatusService } from "./modules/scheduled-statuses/index.js";
export { translationsModule, type TranslationService } from "./modules/translations/index.js";
export { endorsementsModule } from "./modules/endorsements/index.js";
export { eventsModule, type EventsModuleServices } from "./modules/events/index.js";
export { featuredTagsModule } from "./modules/featured-tags/index.js";
export { directoryModule } from "./modules/directory/index.js";
export { collectionsModule } from "./modules/collections/index.js";
export { signUpBlocksModule } from "./modules/sign-up-blocks/index.js";
export { adminMetricsModule } from "./modules/admin-metrics/index.js";
export { annualReportsModule } from "./modules/annual-reports/index.js";
export { pushModule, type PushService, type WebPushSubscriptionEntity } from "./modules/push/index.js";
export { previewCardsModule, type PreviewCardService } from "./modules/preview-cards/index.js";
export { platformDataModule, type DataService, type DataEntryEntity } from "./modules/platform-data/index.js";
export {
  groupsModule,
  type GroupsServices,
  type GroupEntity,
  type GroupSettingDefinition,
  type SettingReaders,
  type SettingValue,
} from "./modules/groups/index.js";
export {
  reportsModule,
  type ReportsServices,
  type ReportService,
  type ReportForwarder,
  type ForwardedReport,
  type ReceivedReport,
} from "./modules/reports/index.js";
export type { DomainEvents, DomainEvent, DomainEventType, DomainEventOf } from "./platform/events/domain-events.js";
export type { AccountEntity } from "./mastodon/entities/account.js";

// Embedded defaults and in-core adapters of the ports.
export { systemClock } from "./memory/system-clock.js";
export { systemRandom } from "./memory/system-random.js";
export { MonotonicIdGenerator } from "./memory/monotonic-id-generator.js";
export { MemoryPubSub } from "./memory/memory-pubsub.js";
export { MailOutbox, SmsOutbox } from "./memory/outboxes.js";
export { SmtpMailer, type SmtpMailerOptions } from "./mail/smtp-mailer.js";
export { HttpSmsSender, type HttpSmsSenderOptions } from "./sms/http-sms-sender.js";
export { MemoryBlobStore } from "./memory/memory-blob-store.js";
export { LocalDirectoryBlobStore, type LocalDirectoryBlobStoreOptions } from "./blob/local-directory-blob-store.js";
export { DeterministicAiProvider } from "./memory/deterministic-ai.js";
export { MemoryQueue, type MemoryQueueOptions } from "./memory/memory-queue.js";
// Sealing what must be read back (a server generates its key with `SecretBox.newKey()`).
export { SecretBox, UnreadableSecretError } from "./platform/crypto/secret-box.js";
export { SqlQueue, type SqlQueueOptions } from "./platform/queue/sql-queue.js";

// What a queue or blob adapter shares with core's own, so that every implementation of the port behaves alike.
export { backoffDelayMs } from "./memory/memory-queue.js";
export { NOT_READY_DELAY_MS, cannotRunYet, jobNotReady } from "./platform/queue/not-ready.js";
export { AttemptFailures, type FailedAttempt } from "./platform/queue/attempt-failures.js";
export { errorMessageOf } from "./platform/queue/job-rows.js";
/** Work in flight counted without a Set of its promises (see why there): a queue's `close()` waits for its jobs with it. */
export { PendingWork } from "./pending-work.js";
export { assertValidBlobKey, blobKeyProblem, InvalidBlobKeyError } from "./blob/blob-keys.js";
