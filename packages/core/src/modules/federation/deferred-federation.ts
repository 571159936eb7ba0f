import type { Message } from "@fedify/fedify";
import type { Object as APObject } from "@fedify/fedify/vocab";
import type { FallbackHandler } from "../../platform/http/fetch-handler.js";
import type { HandlerOptions } from "../../ports/queue.js";
import { jobNotReady } from "../../platform/queue/not-ready.js";
import type { ServiceDeps } from "../service-deps.js";
import { type DomainEvent, type DomainEventType, DomainEvents } from "../../platform/events/domain-events.js";
import type { KithServices } from "../core-services.js";
import { BatchDelivery } from "../../platform/federation/batch-delivery.js";
import { DeliveryGate } from "../../platform/federation/delivery-gate.js";
import { FedifyMessageQueue } from "../../platform/federation/fedify-message-queue.js";
import { InboxAddresses } from "../../platform/federation/inbox-addresses.js";
import { InboxSender } from "../../platform/federation/inbox-sender.js";
import type { SentFollow } from "../relationships/follow-outbox.js";
import type { KithFederation, KithFederationOptions } from "./kith-federation.js";
import { pruneExpiredEntries } from "../../platform/federation/kv-pruning.js";
import { FEDERATION_JOB_QUEUES, type FederationJobQueue } from "../../platform/federation/queue-names.js";
import { type SafeFetch, createSafeFetch } from "../../platform/federation/safe-fetch.js";
import { SqlKvStore } from "../../platform/federation/sql-kv-store.js";
import { userAgentOf } from "../../platform/federation/user-agent.js";
import type { WebFingerDocument } from "../../platform/federation/webfinger-client.js";

// Fedify and what it brings (JSON-LD, OpenTelemetry, es-toolkit, the vocabulary) are half the modules of a server and
// about 60 MB: they are loaded on the first request, job or domain event that needs them, not when Kith starts. This
// module must not import Fedify at run time (types only), nor anything that does.

/** The parts of the federation that do not need Fedify, made at once and shared with the Federation built later. */
export interface FederationParts {
  readonly kv: SqlKvStore;
  /** Fedify's messages as jobs of the queue port. */
  readonly queue: FedifyMessageQueue;
  readonly deliveries: DeliveryGate;
  readonly fetch: SafeFetch;
}

/**
 * Inboxes in one batch job at most: a post to more servers is several jobs, which other workers can share. A batch
 * cut off by a crash is sent again whole (servers drop the copies by the activity's id).
 */
const BATCH_SIZE = 100;

/**
 * The parts; `prepare` is what makes this process ready to work Fedify's queued messages (loads the federation, which
 * sets the private keys' resolver), called by the queue bridge before the first message that needs it.
 */
export function federationPartsOf(
  deps: ServiceDeps,
  services: KithServices,
  fetch?: SafeFetch,
  prepare?: () => Promise<void>,
): FederationParts {
  const { allowPrivateAddress } = deps.config;
  const deliveries = new DeliveryGate({
    domainPolicy: services.domainPolicy,
    monitor: services.federationMonitor,
    clock: deps.clock,
    inboxAddresses: new InboxAddresses({ allowPrivateAddress, clock: deps.clock }),
  });
  const { optimisations } = deps.config;
  const kv = new SqlKvStore(deps.storage, deps.clock, { keepInMemory: optimisations.kvMemory });
  const batches = new BatchDelivery({
    gate: deliveries,
    kv,
    sender: new InboxSender({ allowPrivateAddress }),
    handBack: (messages): Promise<void> => queue.enqueueEach(messages),
    userAgent: userAgentOf(deps.config),
  });
  const { retries, baseSeconds, maxSeconds } = deps.config.deliveryRetries;
  const queue: FedifyMessageQueue = new FedifyMessageQueue(deps.queue, {
    ...(prepare && { prepare }),
    deliveryRetries: { maxAttempts: retries + 1, backoff: { baseMs: baseSeconds * 1_000, maxMs: maxSeconds * 1_000 } },
    around: deliveries.around,
    ...(optimisations.batchDelivery && { batches: { size: BATCH_SIZE, deliver: (batch): Promise<void> => batches.deliver(batch) } }),
  });
  return { kv, queue, deliveries, fetch: fetch ?? createSafeFetch({ allowPrivateAddress }) };
}

/** The federation of a Kith instance, built (and Fedify loaded) on first use. */
export interface DeferredFederation {
  /** The federation, built on the first call; calls made meanwhile wait for the same one. */
  load(): Promise<KithFederation>;
  /** Whether it has been built. */
  readonly loaded: boolean;
  /** Answers the requests Fedify knows (WebFinger, NodeInfo, actors, collections, objects, inboxes); null passes them on. */
  readonly handle: FallbackHandler;
  /** Resolves a WebFinger resource (`acct:user@host` or a URL) over the safe fetch. */
  webFinger(resource: string): Promise<WebFingerDocument | null>;
  /** Fetches a remote object by URL or `@user@host` handle, signed by the instance actor; null when not found. */
  lookup(identifier: string): Promise<APObject | null>;
  /** A local account (by username) asks to follow a remote actor (URL or handle); null when either is unknown. */
  sendFollow(username: string, identifier: string, options?: { immediate?: boolean }): Promise<SentFollow | null>;
  /**
   * Works Fedify's queued messages in this process until `signal` aborts and schedules the repeating jobs (the
   * server's start). The first job that needs Fedify loads it.
   */
  start(signal: AbortSignal): Promise<void>;
}

export interface DeferredFederationOptions {
  readonly deps: ServiceDeps;
  readonly services: KithServices;
  /** Sets the feature modules' inbox listeners beside the core's. */
  readonly listen?: KithFederationOptions["listen"];
  /** Overrides the outgoing fetch (tests). */
  readonly fetch?: SafeFetch;
}

/** Every path a Fedify dispatcher of `createKithFederation` answers under; other requests never load it. */
const FEDIFY_PATH = /^\/(?:\.well-known\/|nodeinfo\/|users\/|inbox$)/;

/**
 * Every domain event type, and whether the outgoing side listens to it on its own bus, which those are passed on to
 * (an event it does not listen to must not load the federation).
 */
const DOMAIN_EVENT_TYPES: Readonly<Record<DomainEventType, boolean>> = {
  "status.created": true,
  "status.updated": true,
  "status.deleted": true,
  "quote.created": true,
  "quote.revoked": true,
  "favourite.created": true,
  "favourite.removed": true,
  "follow.created": true,
  "follow.requested": true,
  "follow.rejected": true,
  "follow.removed": true,
  "block.created": true,
  "block.removed": true,
  "mute.created": true,
  "domain_block.created": true,
  "pin.added": true,
  "pin.removed": true,
  "poll.voted": true,
  "poll.closed": true,
  "account.updated": true,
  "account.moved": true,
  "account.deleting": true,
  "group.deleted": false,
  "moderation.action": false,
};

/**
 * Sets up the federation without loading Fedify: the parts that do not need
 * it, the repeating jobs, and stand-ins on the services' hooks (remote
 * directory, replies fetcher, status resolver, domain events) that build the
 * Federation when first called. What it does once built is exactly what
 * `createKithFederation` wires.
 */
export function createDeferredFederation(options: DeferredFederationOptions): DeferredFederation {
  const { deps, services } = options;
  const parts = federationPartsOf(deps, services, options.fetch, async () => {
    await loadForJob();
  });
  // The outgoing side reacts to domain events on a bus of its own: the first event loads it, then gets passed on.
  const outgoingEvents = new DomainEvents();
  let built: KithFederation | null = null;
  let building: Promise<KithFederation> | null = null;

  function load(): Promise<KithFederation> {
    building ??= import("./kith-federation.js")
      .then(({ createKithFederation }) => {
        built = createKithFederation({ deps, services, parts, events: outgoingEvents, ...(options.listen && { listen: options.listen }) });
        return built;
      })
      .catch((error: unknown) => {
        // A failed load is tried again by the next caller.
        building = null;
        throw error;
      });
    return building;
  }

  /** The federation for a job: one that cannot be built yet is the process's fault, and the job waits uncounted. */
  async function loadForJob(): Promise<KithFederation> {
    try {
      return await load();
    } catch (error) {
      throw jobNotReady("The federation could not be loaded in this process yet", error);
    }
  }

  // Registered now, in every process that works jobs, so a job waiting on them runs whenever it comes: its first
  // run loads Fedify.
  for (const [queue, handlerOptions] of Object.entries(FEDERATION_JOB_QUEUES) as [FederationJobQueue, HandlerOptions][]) {
    deps.queue.handle(queue, async (payload, context) => (await loadForJob()).jobs[queue](payload, context), handlerOptions);
  }

  for (const [type, passed] of Object.entries(DOMAIN_EVENT_TYPES) as [DomainEventType, boolean][]) {
    if (!passed) continue;
    services.events.on(type, async (event: DomainEvent) => {
      await load();
      await outgoingEvents.emit(event);
    });
  }
  services.remoteAccounts.bind({
    resolveAccount: async (identifier) => (await load()).directory.resolveAccount(identifier),
    collectionPage: async (actorUri, which, range) => (await load()).directory.collectionPage(actorUri, which, range),
    sendFlag: async (flag) => (await load()).directory.sendFlag(flag),
  });
  services.statusQueries.useRemoteReplies({ fetchLater: async (statusId) => (await load()).remoteReplies.fetchLater(statusId) });
  services.search.useStatusResolver({
    resolveStatus: async (url, viewerId) => (await load()).statusResolver.resolveStatus(url, viewerId),
  });
  const scheduleMaintenance = pruneExpiredEntries(deps.queue, parts.kv);

  return {
    load,
    get loaded() {
      return built !== null;
    },
    handle: async (request, info) => (FEDIFY_PATH.test(new URL(request.url).pathname) ? (await load()).handle(request, info) : null),
    webFinger: async (resource) => (await load()).webFinger(resource),
    lookup: async (identifier) => (await load()).lookup(identifier),
    sendFollow: async (username, identifier, followOptions) => (await load()).sendFollow(username, identifier, followOptions),
    async start(signal) {
      // What Fedify's startQueue does (one listener on the one queue), without loading it until a message comes.
      void parts.queue.listen(async (message) => (await load()).federation.processQueuedTask({ serving: false }, message as Message), {
        signal,
      });
      await scheduleMaintenance();
    },
  };
}
