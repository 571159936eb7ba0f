import { type FallbackHandler, type FetchHandler, createFetchHandler } from "./platform/http/fetch-handler.js";
import type { AnyRoute } from "./platform/http/route.js";
import { serverRoutes } from "./modules/core-routes.js";
import { type KithConfig, type KithConfigInput, resolveConfig } from "./config.js";
import { type DeferredFederation, createDeferredFederation } from "./modules/federation/deferred-federation.js";
import type { SafeFetch } from "./platform/federation/safe-fetch.js";
import type { InstanceLimits } from "./domain/limits.js";
import { checkModuleOrder, composeModules, migrationsWithModules } from "./modules/composed-modules.js";
import { defaultModules } from "./modules/default-modules.js";
import type { KithModule, ModuleFederation } from "./modules/module.js";
import { getLogger } from "./logging.js";
import { DeterministicAiProvider } from "./memory/deterministic-ai.js";
import { MemoryBlobStore } from "./memory/memory-blob-store.js";
import { MemoryPubSub } from "./memory/memory-pubsub.js";
import { MemoryQueue } from "./memory/memory-queue.js";
import { MonotonicIdGenerator } from "./memory/monotonic-id-generator.js";
import { MailOutbox, SmsOutbox } from "./memory/outboxes.js";
import { systemClock } from "./memory/system-clock.js";
import { systemRandom } from "./memory/system-random.js";
import type { AiProvider } from "./ports/ai.js";
import type { BlobStore } from "./ports/blob.js";
import type { Clock } from "./ports/clock.js";
import type { IdGenerator } from "./ports/ids.js";
import type { Mailer } from "./ports/mail.js";
import type { PubSub } from "./ports/pubsub.js";
import type { Queue } from "./ports/queue.js";
import type { Random } from "./ports/random.js";
import type { SmsSender } from "./ports/sms.js";
import type { Storage } from "./ports/storage.js";
import { PasswordHasher } from "./modules/auth/password-hasher.js";
import { keptSecretKey } from "./platform/crypto/kept-secret-key-store.js";
import { SecretBox } from "./platform/crypto/secret-box.js";
import type { ServiceDeps } from "./modules/service-deps.js";
import { type KithServices, createServices } from "./modules/core-services.js";
import { coreMigrations } from "./storage/migrations/core-migrations.js";

/**
 * Builds the queue from the ports Kith makes for itself, for a queue that
 * needs them: the durable SQL queue keeps its jobs in `storage`, and every
 * queue names jobs with `ids` and reads time from `clock`.
 */
export type QueueFactory = (deps: QueueFactoryDeps) => Queue | Promise<Queue>;

export interface QueueFactoryDeps {
  readonly storage: Storage;
  readonly ids: IdGenerator;
  readonly clock: Clock;
}

export interface CreateKithOptions {
  /** The database; required. */
  readonly storage: Storage;
  readonly config: KithConfigInput;
  /**
   * The job queue, or a factory that builds it from Kith's storage, ids and clock.
   * Jobs are worked only after `start()`.
   * @default an in-memory queue (not durable: fine for tests, loses queued jobs on a crash)
   */
  readonly queue?: Queue | QueueFactory;
  /** @default in-process fan-out */
  readonly pubsub?: PubSub;
  /** @default an outbox kept in memory and logged */
  readonly mail?: Mailer;
  /** @default an outbox kept in memory and logged */
  readonly sms?: SmsSender;
  /** @default blobs in memory */
  readonly blob?: BlobStore;
  /** @default a deterministic local provider (no network) */
  readonly ai?: AiProvider;
  readonly clock?: Clock;
  readonly random?: Random;
  readonly ids?: IdGenerator;
  readonly limits?: InstanceLimits;
  /**
   * The feature modules, in the order they are composed (a module after the
   * ones it requires). Pass `[...defaultModules, yours]` to add one, or a
   * shorter list to leave optional ones out. @default defaultModules
   */
  readonly modules?: readonly KithModule<string, unknown>[];
  /** Apply pending migrations before returning. @default true */
  readonly migrate?: boolean;
  /** Answer requests the route table does not know (federation, web pages). */
  readonly fallbacks?: readonly FallbackHandler[];
  /** Replaces the outgoing fetch of federation lookups (tests on loopback without TLS). @default the safe fetch */
  readonly federationFetch?: SafeFetch;
}

/** A running Kith: its services, its HTTP surface, and its lifecycle. */
export interface Kith extends ServiceDeps {
  readonly services: KithServices;
  /** The services of one of the instance's modules; throws for a module it does not compose. */
  module<S>(module: KithModule<string, S>): S;
  readonly routes: readonly AnyRoute[];
  /** The whole HTTP surface as a web-standard fetch handler. */
  readonly fetch: FetchHandler;
  /** ActivityPub: Fedify wired to Kith (actors, collections, key pairs, lookups of remote objects), built on first use. */
  readonly federation: DeferredFederation;
  /** Starts background work in this process: the queue's workers and its heartbeat. Requests are served without it. */
  start(): Promise<void>;
  /** Stops workers and closes the ports Kith opened. */
  close(): Promise<void>;
}

/**
 * Assembles Kith from the adapters given, filling the rest with the
 * embedded defaults. Applies migrations unless told not to.
 */
export async function createKith(options: CreateKithOptions): Promise<Kith> {
  const config: KithConfig = resolveConfig(options.config, options.limits);
  const clock = options.clock ?? systemClock;
  const random = options.random ?? systemRandom;
  const ids = options.ids ?? new MonotonicIdGenerator(clock, random);
  const moduleList = options.modules ?? defaultModules;
  checkModuleOrder(moduleList);
  if (options.migrate ?? true) {
    const report = await options.storage.migrate(migrationsWithModules(coreMigrations, moduleList));
    if (report.applied.length) getLogger(["storage"]).info("Applied migrations: {names}", { names: report.applied.join(", ") });
  }
  // Built after the migrations: a queue kept in the database needs its tables.
  const queue =
    typeof options.queue === "function"
      ? await options.queue({ storage: options.storage, ids, clock })
      : (options.queue ?? new MemoryQueue({ clock, ids }));
  const deps: ServiceDeps = {
    config,
    storage: options.storage,
    queue,
    pubsub: options.pubsub ?? new MemoryPubSub(),
    mail: options.mail ?? new MailOutbox(),
    sms: options.sms ?? new SmsOutbox(),
    blob: options.blob ?? new MemoryBlobStore(),
    ai: options.ai ?? new DeterministicAiProvider(),
    clock,
    ids,
    random,
    passwords: new PasswordHasher(random, { cost: config.passwordHashCost }),
    secrets: await secretBoxOf(config, options.storage, clock),
  };
  const services = createServices(deps);
  // The modules reach the federation built below, which loads Fedify only when first used.
  const moduleFederation: ModuleFederation = {
    context: async () => (await federation.load()).context(),
    lookup: (identifier) => federation.lookup(identifier),
  };
  const modules = composeModules(moduleList, { deps, core: services, events: services.events, federation: moduleFederation });
  const routes = serverRoutes(modules.routes);
  const federation = createDeferredFederation({
    deps,
    services,
    listen: modules.listen,
    ...(options.federationFetch && { fetch: options.federationFetch }),
  });
  // Fedify answers only what it knows (WebFinger, NodeInfo, actors, collections, inboxes) and passes the rest on.
  const fallbacks = [federation.handle, ...(options.fallbacks ?? [])];
  const fetch = createFetchHandler({
    routes,
    services,
    authenticate: (token) => services.sessions.authenticate(token),
    config,
    fallbacks,
    addressAllowed: (ip) => services.accessBlocks.addressAllowed(ip),
  });
  const federationQueue = new AbortController();
  return {
    ...deps,
    services,
    module: modules.use,
    routes,
    fetch,
    federation,
    async start() {
      // Registers the handler of Fedify's messages on the queue port (Fedify is loaded with the first one).
      await federation.start(federationQueue.signal);
      await services.pendingStatusReactions.scheduleRecovery(deps.queue);
      // The entries of statuses left waiting when the process last stopped.
      await services.searchEntries.flush();
      await modules.start();
      await deps.queue.start();
    },
    async close() {
      // Reactions still running after their request answered (fan-out of a new status) finish before the ports close.
      await services.events.settled();
      federationQueue.abort();
      await deps.queue.stop();
      await modules.stop();
      await services.federationMonitor.flushInbox();
      await services.searchEntries.flush();
      services.searchEntries.stop();
      await deps.pubsub.close();
      await deps.storage.close();
    },
  };
}

/** The configured secret keys' box, or one over the key the server keeps in its database (with a warning) when none is. */
async function secretBoxOf(config: KithConfig, storage: Storage, clock: Clock): Promise<SecretBox> {
  if (config.secretKeys.length > 0) return new SecretBox(config.secretKeys);
  getLogger(["config"]).warn(
    "No secret key is configured (secretKeys, KITH_SECRET_KEYS): secrets at rest are sealed with a key kept in the database itself",
  );
  return new SecretBox([await keptSecretKey(storage.db, SecretBox.newKey(), clock.now().toISOString())]);
}
