export { createKith, type CreateKithOptions, type Kith, type QueueFactory, type QueueFactoryDeps } from "./kith.js";
export { type KithConfig, type KithConfigInput, kithConfigSchema, resolveConfig } from "./config.js";
export { getLogger, type Logger } from "./logging.js";

export type * from "./ports/index.js";
export type * from "./ports/storage-schema.js";
export { toBool } from "./ports/storage-schema.js";
export type * from "./ports/migration-spec.js";
export { migrationStatements } from "./storage/migrations/ddl.js";
export { coreMigrations } from "./storage/migrations/core-migrations.js";
export { MediaService, type MediaServiceOptions } from "./services/media/media-service.js";
export { fetchIdPage } from "./platform/storage/paginate-by-id.js";
export { consumeOnceByUpdate, incrementCounterByUpsert } from "./platform/storage/atomic-statements.js";
export { KyselyStorage } from "./platform/storage/kysely-storage.js";

export * from "./domain/ids.js";
export * from "./domain/errors.js";
export { errorCatalog, defineErrorCodes, type ErrorCode, type ErrorEntry, type ModuleErrorCode } from "./domain/error-catalog.js";
export * from "./domain/permissions.js";
export * from "./domain/scopes.js";
export * from "./domain/accounts.js";
export * from "./domain/caller.js";
export * from "./domain/limits.js";
export * from "./domain/instance-settings.js";
export { RESOURCES, BUILT_IN_ROLES, type ResourceName } from "./domain/resources.js";
export type { PageRequest } from "./domain/page.js";

export { createServices, type KithServices, type ServiceDeps } from "./services/index.js";
export * from "./services/events/domain-events.js";
export { AccountViews, type MediaUrls } from "./services/profiles/account-views.js";
export type { AccountEntity } from "./mastodon/entities/account.js";
export { StatusViews, type AccountRenderer, type StatusMediaRenderer, type RenderOptions } from "./services/statuses/status-views.js";
export { visibleTo, visibleStatusIds, isVisibleTo, mayView, type VisibilityFacts } from "./storage/repositories/visibility.js";
export * from "./services/streaming/channels.js";
export { AccountService, type CreateLocalAccountInput, type AccountModification } from "./services/accounts/account-service.js";
export { SessionService, type IssuedSession } from "./services/auth/session-service.js";
export { PasswordHasher } from "./services/auth/password-hasher.js";
export { SettingsService } from "./services/settings/settings-service.js";
export { JobsService, type JobTotals, type QueueSummary } from "./services/jobs/jobs-service.js";
export {
  RegistrationService,
  type RegistrationInput,
  type RegistrationErrorCode,
  EMAIL_CONFIRMATION_KIND,
} from "./services/registration/registration-service.js";
export { EmailAllowService } from "./services/registration/email-allow-service.js";
export { checkEmailAddress, normalizeDomain, type EmailCheck } from "./services/registration/email-address.js";
export * as registrationRateLimits from "./services/registration/rate-limits.js";
export { SignupService, type SignupRow } from "./services/signups/signup-service.js";
export { RoleService, type RoleView, type AssignmentView, type RbacConfig, grantsCover } from "./services/roles/role-service.js";
export {
  AdminAccountService,
  type AdminAccountView,
  type AdminActor,
  ACCOUNT_ACTIONS,
  type AccountAction,
} from "./services/admin/admin-account-service.js";

export { route, type RouteDefinition, type AnyRoute, type HandlerContext, type HttpMethod } from "./platform/http/route.js";
export * from "./platform/http/access.js";
export { Reply } from "./platform/http/reply.js";
export { createFetchHandler, type FetchHandler, type FallbackHandler, type RequestInfo } from "./platform/http/fetch-handler.js";
export { errorToResponse } from "./platform/http/error-response.js";
export { routeTable, defaultModules } from "./modules/default-modules.js";
export { migrationsWithModules } from "./modules/composed-modules.js";
export {
  defineModule,
  moduleRoute,
  type KithModule,
  type ModuleContext,
  type ModuleJob,
  type ModuleHandlerContext,
  type ModuleRouteDefinition,
} from "./modules/module.js";
export { preferencesModule } from "./modules/preferences/index.js";
export { customEmojisModule } from "./modules/custom-emojis/index.js";
export { trendsModule } from "./modules/trends/index.js";
export { suggestionsModule } from "./modules/suggestions/index.js";
export { buildOpenApiDocument } from "./platform/http/openapi.js";
export * from "./platform/http/pagination.js";
export { expandRailsParams } from "./platform/http/rails-params.js";

export { systemClock, FakeClock } from "./memory/system-clock.js";
export { systemRandom } from "./memory/system-random.js";
/** The bounded map core's caches use (it drops what was used longest ago); storage adapters keep their prepared statements in one. */
export { BoundedMap } from "./bounded-map.js";
/** Work in flight counted without a Set of its promises (see why there); queue adapters wait for theirs with it. */
export { PendingWork } from "./pending-work.js";
export { MonotonicIdGenerator } from "./memory/monotonic-id-generator.js";
export { MemoryQueue, type MemoryQueueOptions, backoffDelayMs } from "./memory/memory-queue.js";
export { SqlQueue, type SqlQueueOptions } from "./platform/queue/sql-queue.js";
export { NOT_READY_DELAY_MS, cannotRunYet, jobNotReady } from "./platform/queue/not-ready.js";
export { AttemptFailures, type FailedAttempt } from "./platform/queue/attempt-failures.js";
export { errorMessageOf } from "./platform/queue/job-rows.js";
export { FedifyMessageQueue, type FedifyMessageQueueOptions } from "./platform/federation/fedify-message-queue.js";
export {
  OutgoingFetchError,
  type SafeFetch,
  type SafeFetchInit,
  type SafeFetchOptions,
  createSafeFetch,
  isNonPublicAddress,
} from "./platform/federation/safe-fetch.js";
export type { KithFederation } from "./federation/kith-federation.js";
export type { FederationContextData } from "./platform/federation/federation-context-data.js";
export type { DeferredFederation } from "./federation/deferred-federation.js";
export { SqlKvStore } from "./platform/federation/sql-kv-store.js";
export type { KeyPairStore } from "./federation/key-pairs.js";
export type { DomainPolicy } from "./services/domain-policy/domain-policy-service.js";
export { MemoryPubSub } from "./memory/memory-pubsub.js";
export { SESSION_CACHE_TTL_MS, SIGN_IN_CHANGED_CHANNEL } from "./services/auth/session-service.js";
export { MailOutbox, SmsOutbox } from "./memory/outboxes.js";
export { SmtpMailer, type SmtpMailerOptions } from "./mail/smtp-mailer.js";
export { HttpSmsSender, type HttpSmsSenderOptions } from "./sms/http-sms-sender.js";
export { MemoryBlobStore } from "./memory/memory-blob-store.js";
export { LocalDirectoryBlobStore, type LocalDirectoryBlobStoreOptions } from "./blob/local-directory-blob-store.js";
export { assertValidBlobKey, blobKeyProblem, InvalidBlobKeyError } from "./blob/blob-keys.js";
export { DeterministicAiProvider } from "./memory/deterministic-ai.js";
// Zod is inlined in core's build: the server validates with this copy instead of loading a second one.
export { z } from "zod";
