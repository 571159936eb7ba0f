import { type Context, type Federation, type InboxListenerSetters, type RequestContext, createFederation } from "@fedify/fedify";
import { type Activity, Object as APObject, type Recipient } from "@fedify/fedify/vocab";
import * as vocab from "@fedify/fedify/vocab";
import type { FallbackHandler } from "../../platform/http/fetch-handler.js";
import { getLogger } from "../../logging.js";
import type { ServiceDeps } from "../service-deps.js";
import type { DomainEvents } from "../../platform/events/domain-events.js";
import type { RemoteDirectory } from "./remote-directory.js";
import type { RemoteStatusResolver } from "../search/search-service.js";
import type { RemoteRepliesFetcher } from "../statuses/status-queries.js";
import type { KithServices } from "../core-services.js";
import { findAccountRows } from "../accounts/accounts-store.js";
import {
  countFollows,
  countOutboxStatuses,
  findLocalActorAccount,
  findStatusOf,
  listFeaturedStatuses,
  listFollowPage,
  listOutboxStatuses,
} from "./federation-reads-store.js";
import type { AccountRow } from "../../ports/storage-schema.js";
import { INSTANCE_ACTOR_IDENTIFIER, type MediaUrls, instanceActorOf, isInstanceActorHandle, localActorOf, profileTexts } from "./actors.js";
import { localEmojiTags } from "../emojis/emoji-tags.js";
import { cachedSignedDocumentLoader, signedDocumentLoader } from "../../platform/federation/document-loader.js";
import { instanceSigningIdentity } from "./instance-identity.js";
import { type FetchSigner, fetchSignerOf, lazyFetchSigner } from "../../platform/federation/fetch-signer.js";
import { gateFetch } from "../../platform/federation/fetch-gate.js";
import { keysOnlyActorOf } from "./keys-only-actors.js";
import { mayFetchFollowersOnlyOf, mayFetchStatus } from "../statuses/status-fetch-access.js";
import { openInSecureMode } from "./secure-mode-paths.js";
import { discoveryDocuments } from "./discovery-documents.js";
import { nodeInfoOf } from "./node-info.js";
import { type FederationParts, federationPartsOf } from "./deferred-federation.js";
import { actorPrivateKeys } from "./actor-private-keys.js";
import { listenForFollows } from "../relationships/follow-inbox.js";
import { listenForGraph } from "../relationships/graph-inbox.js";
import { federateGraphEvents } from "../relationships/graph-outbox.js";
import { SIGNATURE_MAX_AGE, SIGNATURE_MAX_AGE_MS, guardInbox } from "../../platform/federation/inbox-guard.js";
import { inboxIdempotenceKey } from "../../platform/federation/inbox-idempotence.js";
import { type SentFollow, sendFollow } from "../relationships/follow-outbox.js";
import { KeyFetchBudget } from "../../platform/federation/key-fetch-budget.js";
import { INSTANCE_KEY_OWNER, KeyPairStore } from "./key-pairs.js";
import { NOTE_PATH } from "../statuses/local-note-uris.js";
import { actorUriOf, flag } from "../statuses/notes.js";
import { dispatchStatusActivities } from "../statuses/status-dispatchers.js";
import { dispatchProfileCollections } from "./profile-collections.js";
import { type StatusObjectSource, loadStatusObjects, statusObjectOf } from "../statuses/status-objects.js";
import { remoteReplies } from "../statuses/remote-replies.js";
import { RemoteActors } from "./remote-actors.js";
import { RemoteHandles } from "./remote-handles.js";
import { createRemoteDirectory } from "./remote-resolution.js";
import type { SafeFetch } from "../../platform/federation/safe-fetch.js";
import { queueInboxActivity } from "../../platform/federation/queued-inbox.js";
import { sharedListeners } from "../../platform/federation/shared-inbox-listeners.js";
import { type InboxFrontCounts, createInboxFront } from "../../platform/federation/inbox-front.js";
import { signedPartiesOf } from "../../platform/federation/signer-origins.js";
import { VerifiedKeys } from "../../platform/federation/verified-keys.js";
import { FIRST_KNOCK } from "../../platform/federation/signature-specs.js";
import { FEDIFY_KV_PREFIXES } from "../../platform/federation/fedify-kv-prefixes.js";
import { userAgentOf } from "../../platform/federation/user-agent.js";
import { listenForPosts } from "../statuses/status-inbox.js";
import { listenForFlags } from "./flag-inbox.js";
import { listenForReactions } from "../statuses/reaction-inbox.js";
import { passOverUnhandledActivities } from "./unhandled-activities.js";
import { statusResolver } from "../statuses/status-resolution.js";
import { type LocalUris, storedSenderOf } from "./stored-senders.js";
import { federateStatuses } from "../statuses/status-outbox.js";
import { dispatchQuoteAuthorizations, federateQuotes } from "../statuses/quote-outbox.js";
import { listenForQuotes } from "../statuses/quote-inbox.js";
import type { SqlKvStore } from "../../platform/federation/sql-kv-store.js";
import { type WebFingerDocument, lookupWebFinger, parseHandle } from "../../platform/federation/webfinger-client.js";
import {
  FORWARDED_CREATES_QUEUE,
  type FederationJobQueue,
  POLL_RESULTS_QUEUE,
  REPLIES_QUEUE,
} from "../../platform/federation/queue-names.js";
import { forwardedCreates } from "../statuses/forwarded-creates.js";
import type { JobHandler } from "../../ports/queue.js";
import type { FederationContextData } from "../../platform/federation/federation-context-data.js";

/** Fedify wired to Kith's storage, queue, services and safe outgoing fetch. */
export interface KithFederation {
  readonly federation: Federation<FederationContextData>;
  readonly keys: KeyPairStore;
  readonly kv: SqlKvStore;
  /** The outgoing fetch every federation request uses (private addresses refused unless the config allows them). */
  readonly fetch: SafeFetch;
  /** Answers the requests Fedify knows (WebFinger, NodeInfo, actors, collections, objects, inboxes); null passes them on. */
  readonly handle: FallbackHandler;
  /** A context for work outside a request (sending activities, lookups). */
  context(): Context<FederationContextData>;
  /** Resolves a WebFinger resource (`acct:user@host` or a URL) over the safe fetch. */
  webFinger(resource: string): Promise<WebFingerDocument | null>;
  /**
   * Fetches a remote object by URL or `@user@host` handle, signing the fetch
   * with the instance actor's key (for servers that require signed fetches).
   * Null when it cannot be found or is not what its origin says.
   */
  lookup(identifier: string): Promise<APObject | null>;
  /**
   * A local account (by username) asks to follow a remote actor (URL or
   * handle): the request is recorded and a Follow sent (queued unless
   * `immediate`); the Accept turns it into a follow. Null when either is unknown.
   */
  sendFollow(username: string, identifier: string, options?: { immediate?: boolean }): Promise<SentFollow | null>;
  /** What the services' federation hooks call (bound to them here). */
  readonly directory: RemoteDirectory;
  readonly remoteReplies: RemoteRepliesFetcher;
  readonly statusResolver: RemoteStatusResolver;
  /** How many inbox POSTs the inbox front answered, and how many it left to Fedify. */
  readonly inboxFront: Readonly<InboxFrontCounts>;
  /** The handlers of the queues whose jobs need Fedify, which the deferred federation registers at start. */
  readonly jobs: Readonly<Record<FederationJobQueue, JobHandler>>;
}

export interface KithFederationOptions {
  readonly deps: ServiceDeps;
  readonly services: KithServices;
  /** Overrides the outgoing fetch (tests). */
  readonly fetch?: SafeFetch;
  /** The parts made before Fedify was loaded (the deferred federation's). @default made here */
  readonly parts?: FederationParts;
  /** The bus the outgoing side listens on. @default services.events */
  readonly events?: DomainEvents;
  /** Sets the feature modules' inbox listeners, after the core's. */
  readonly listen?: (inbox: InboxListenerSetters<FederationContextData>, vocabulary: typeof vocab) => void;
}

const PAGE_SIZE = 40;
const logger = getLogger(["federation"]);

function mediaOf(services: KithServices): MediaUrls | null {
  const media = (services as unknown as { media?: Partial<MediaUrls> }).media;
  return media && typeof media.publicUrls === "function" ? (media as MediaUrls) : null;
}

/** The page cursor: the id of the last item of the previous page ("" for the first page). */
function beforeOf(cursor: string | null): { beforeId?: string } {
  return cursor ? { beforeId: cursor } : {};
}

/** Builds the Federation: dispatchers, key pairs, KvStore and MessageQueue on Kith's ports. */
export function createKithFederation(options: KithFederationOptions): KithFederation {
  const { deps, services } = options;
  const { config, storage } = deps;
  const db = storage.db;
  const parts = options.parts ?? federationPartsOf(deps, services, options.fetch);
  const { kv, deliveries, fetch: safeFetch } = parts;
  const events = options.events ?? services.events;
  const keys = new KeyPairStore(storage, deps.clock);
  const userAgent = userAgentOf(config);
  const media = mediaOf(services);
  const statusObjects: StatusObjectSource = { db, origin: config.origin, media };
  const { optimisations } = config;

  // One loader for every context: Fedify asks for one per request and job, and making it compiles the cache's rules.
  // Signed by the instance actor: servers in secure mode answer no unsigned fetch, a key's included.
  const documentLoader = cachedSignedDocumentLoader(() => instanceIdentity(), { fetch: safeFetch, userAgent, kv });
  const federation = createFederation<FederationContextData>({
    kv,
    // Retries happen in one place, the queue port (`nativeRetrial`): a failed delivery is a job retried with
    // backoff that the jobs API shows; Fedify's circuit breaker is off because it would re-enqueue copies of
    // its own, and unreachable domains are tracked by the delivery gate instead. Incoming activities are not
    // queued by Fedify: the inbox listeners run in the request and queue what needs remote work or fails there
    // (`withSharedListeners`), as jobs of the same queue.
    queue: { outbox: parts.queue, fanout: parts.queue },
    circuitBreaker: false,
    // Stated, not left to Fedify's defaults: batched deliveries read and write the same signature forms.
    firstKnock: FIRST_KNOCK,
    // The entries Kith reads or writes beside Fedify, named for both (fedify-kv-prefixes.ts).
    kvPrefixes: FEDIFY_KV_PREFIXES,
    onOutboxError: deliveries.onOutboxError,
    // Jobs are worked by Kith's queue workers (`Kith.start()`), not by a loop Fedify starts.
    manuallyStartQueue: true,
    origin: config.origin,
    documentLoaderFactory: () => documentLoader,
    contextLoaderFactory: () => documentLoader,
    authenticatedDocumentLoaderFactory: (identity) => signedDocumentLoader(identity, { fetch: safeFetch, userAgent }),
    signatureTimeWindow: SIGNATURE_MAX_AGE,
  });
  const instanceIdentity = instanceSigningIdentity(federation, config.origin);
  // Queued messages keep their keys' ids, not the private keys (sealed-keys.ts): the actors' stored keys sign them.
  parts.queue.resolvePrivateKeysWith(actorPrivateKeys(federation, config.origin));

  async function accountFor(identifier: string): Promise<AccountRow | null> {
    if (identifier === INSTANCE_ACTOR_IDENTIFIER) return null;
    const account = await findLocalActorAccount(db, identifier);
    // Actor URIs use the username as stored; another spelling is not the same URI.
    return account && account.username === identifier ? account : null;
  }

  /**
   * Who signed a GET of an actor's document (its signature verified, fetching the signer's key), logged; null for any
   * other request that reads the actor (a WebFinger lookup, which takes its links from the whole actor). Not for a
   * POST to an inbox, for which Fedify asks whether the recipient exists: it verifies the POST itself, and
   * doing it here too cost every delivery to a personal inbox a fetch of the sender's actor document.
   */
  async function signerOfFetch(ctx: RequestContext<FederationContextData>, identifier: string): Promise<FetchSigner | null> {
    if (ctx.url.pathname !== ctx.getActorUri(identifier).pathname) return null;
    const signer = (await ctx.data.fetchSigner?.()) ?? null;
    if (signer !== null && signer.kind !== "unsigned") {
      logger.debug("Signed fetch of {identifier} by {signer}", {
        identifier,
        signer: signer.kind === "signed" ? signer.actor.href : "a key that did not verify",
      });
    }
    return signer;
  }

  federation
    .setActorDispatcher("/users/{identifier}", async (ctx, identifier) => {
      if (identifier === INSTANCE_ACTOR_IDENTIFIER) return instanceActorOf(ctx, await services.settings.get("title"));
      const account = await accountFor(identifier);
      if (!account) return null;
      const signer = await signerOfFetch(ctx, identifier);
      // Secure mode: an unsigned fetch gets the keys and little else.
      if (config.authorizedFetch && signer !== null && signer.kind !== "signed") return keysOnlyActorOf(ctx, account);
      const moved = account.moved_to_account_id ? (await findAccountRows(db, [account.moved_to_account_id]))[0] : undefined;
      const emojiTags = await localEmojiTags(db, config.origin, profileTexts(account));
      return localActorOf({ ctx, account, movedTo: moved ? actorUriOf(config.origin, moved) : null, media, emojiTags });
    })
    .setKeyPairsDispatcher(async (_ctx, identifier) => {
      const owner = identifier === INSTANCE_ACTOR_IDENTIFIER ? INSTANCE_KEY_OWNER : (await accountFor(identifier))?.id;
      if (!owner) return [];
      return (await keys.keysOf(owner)).map((key) => ({ privateKey: key.privateKey, publicKey: key.publicKey }));
    })
    .mapHandle(async (_ctx, username) => {
      // Mastodon's convention: the instance actor answers to acct:<its preferredUsername>@<host> (actors.ts).
      if (isInstanceActorHandle(username, config.origin)) return INSTANCE_ACTOR_IDENTIFIER;
      return (await findLocalActorAccount(db, username))?.username ?? null;
    });

  // Several areas listen for the same activity types (Undo, Update, Delete): Fedify takes one listener a type, so they are chained.
  // Any activity of a known remote actor whose copy is stale has it fetched again, on the queue.
  const refreshSender = async (ctx: LocalUris, activity: Activity) => {
    const sender = await storedSenderOf(ctx, db, activity, deps.clock.now());
    if (sender) await services.remoteAccounts.refreshLater(sender);
  };
  const { inbox, dispatcher: inboxDispatcher } = sharedListeners(federation.setInboxListeners("/users/{identifier}/inbox", "/inbox"), {
    before: refreshSender,
    queue: queueInboxActivity(parts.queue),
  });
  // Fetches made for the shared inbox (the sender's key, an unknown actor or object) are signed by the instance
  // actor, as servers in secure mode require; personal inboxes sign with the recipient's key (Fedify's own choice).
  inbox.setSharedKeyDispatcher(() => ({ identifier: INSTANCE_ACTOR_IDENTIFIER }));
  inbox.withIdempotency(inboxIdempotenceKey);
  const handles = new RemoteHandles(
    (resource, scheme) => lookupWebFinger(resource, { fetch: safeFetch, userAgent, scheme }),
    () => deps.clock.now().getTime(),
  );
  const actors = new RemoteActors(deps, handles);
  const graphInbox = { deps, services, actors, lookup: (identifier: string) => lookup(identifier) };
  listenForFollows(inbox, { deps, services, actors, graph: graphInbox });
  listenForGraph(inbox, graphInbox);
  listenForPosts(inbox, { deps, services, actors, kv, relays: services.relays });
  listenForQuotes(inbox, { deps, services, actors, kv });
  listenForReactions(inbox, { deps, services, actors });
  listenForFlags(inbox, { deps, services, actors });
  options.listen?.(inbox, vocab);
  passOverUnhandledActivities(inbox);

  federation
    .setFollowersDispatcher("/users/{identifier}/followers", async (ctx, identifier, cursor) => {
      const account = await accountFor(identifier);
      if (!account) return null;
      // Without a cursor the whole list is wanted (fan-out): Fedify pages through it instead.
      if (cursor === null) return null;
      if (ctx.data.serving && flag(account.hide_collections)) return { items: [] };
      const rows = await listFollowPage(db, account.id, "followers", { ...beforeOf(cursor), limit: PAGE_SIZE });
      const items: Recipient[] = rows.flatMap(({ account: follower }) => {
        const id = actorUriOf(config.origin, follower);
        if (id === null) return [];
        const inbox =
          follower.domain === null ? ctx.getInboxUri(follower.username) : follower.inbox_url ? new URL(follower.inbox_url) : null;
        const sharedInbox =
          follower.domain === null ? ctx.getInboxUri() : follower.shared_inbox_url ? new URL(follower.shared_inbox_url) : null;
        return [{ id: new URL(id), inboxId: inbox, endpoints: { sharedInbox } }];
      });
      const last = rows.at(-1);
      return { items, nextCursor: rows.length === PAGE_SIZE && last ? last.followId : null };
    })
    .setCounter(async (_ctx, identifier) => {
      const account = await accountFor(identifier);
      return account ? countFollows(db, account.id, "followers") : null;
    })
    .setFirstCursor(async (_ctx, identifier) => ((await accountFor(identifier)) ? "" : null));

  federation
    .setFollowingDispatcher("/users/{identifier}/following", async (ctx, identifier, cursor) => {
      const account = await accountFor(identifier);
      if (!account) return null;
      if (cursor === null) return null;
      if (ctx.data.serving && flag(account.hide_collections)) return { items: [] };
      const rows = await listFollowPage(db, account.id, "following", { ...beforeOf(cursor), limit: PAGE_SIZE });
      const items = rows.map(({ account: followed }) => actorUriOf(config.origin, followed)).filter((uri): uri is string => uri !== null);
      const last = rows.at(-1);
      return { items: items.map((uri) => new URL(uri)), nextCursor: rows.length === PAGE_SIZE && last ? last.followId : null };
    })
    .setCounter(async (_ctx, identifier) => {
      const account = await accountFor(identifier);
      return account ? countFollows(db, account.id, "following") : null;
    })
    .setFirstCursor(async (_ctx, identifier) => ((await accountFor(identifier)) ? "" : null));

  federation
    .setOutboxDispatcher("/users/{identifier}/outbox", async (ctx, identifier, cursor) => {
      // The instance actor statuses nothing; its outbox is served, empty, as its actor document names it.
      if (identifier === INSTANCE_ACTOR_IDENTIFIER) return cursor === null ? null : { items: [], nextCursor: null };
      const account = await accountFor(identifier);
      if (!account || cursor === null) return null;
      // A follower's signed fetch lists the followers-only statuses too, as their delivery did.
      const withFollowersOnly = await mayFetchFollowersOnlyOf(db, account.id, ctx.data.fetchSigner);
      const rows = await listOutboxStatuses(db, account.id, { ...beforeOf(cursor), limit: PAGE_SIZE, withFollowersOnly });
      const objects = await loadStatusObjects(statusObjects, rows);
      const items = rows.map((row) => objects.activityOf(row)).filter((item) => item !== null);
      const last = rows.at(-1);
      return { items, nextCursor: rows.length === PAGE_SIZE && last ? last.id : null };
    })
    .setCounter(async (ctx, identifier) => {
      if (identifier === INSTANCE_ACTOR_IDENTIFIER) return 0;
      const account = await accountFor(identifier);
      if (!account) return null;
      return countOutboxStatuses(db, account.id, await mayFetchFollowersOnlyOf(db, account.id, ctx.data.fetchSigner));
    })
    .setFirstCursor(async (_ctx, identifier) => (identifier === INSTANCE_ACTOR_IDENTIFIER || (await accountFor(identifier)) ? "" : null));

  federation
    .setFeaturedDispatcher("/users/{identifier}/collections/featured", async (_ctx, identifier) => {
      const account = await accountFor(identifier);
      if (!account) return null;
      const rows = await listFeaturedStatuses(db, account.id);
      const objects = await loadStatusObjects(statusObjects, rows);
      return { items: rows.map((row) => objects.objectOf(row)).filter((object) => object !== null) };
    })
    .setCounter(async (_ctx, identifier) => {
      const account = await accountFor(identifier);
      return account ? (await listFeaturedStatuses(db, account.id)).length : null;
    });

  // A status is a Note, or a Question when it has a poll: registered as Object to serve either.
  federation.setObjectDispatcher(APObject, NOTE_PATH, async (ctx, values) => {
    const account = await accountFor(values.identifier);
    if (!account) return null;
    const status = await findStatusOf(db, account.id, values.id);
    if (!status || status.reblog_of_id !== null) return null;
    // Followers-only and direct statuses: only to a signed fetch of an actor allowed to see them.
    if (!(await mayFetchStatus(db, status, ctx.data.fetchSigner))) return null;
    return statusObjectOf(statusObjects, status);
  });
  dispatchStatusActivities(federation, { db, statusObjects, accountFor });
  dispatchQuoteAuthorizations(federation, { deps, accountFor });
  dispatchProfileCollections(federation, { db, origin: config.origin, features: services.profileFeatures, accountFor });

  const nodeInfo = () => nodeInfoOf(deps, services);
  federation.setNodeInfoDispatcher("/nodeinfo/2.1", nodeInfo);
  const discovery = discoveryDocuments({ origin: config.origin, nodeInfo });

  const context = (): Context<FederationContextData> =>
    deliveries.gate(federation.createContext(new URL(config.origin), { serving: false }));
  const posts = federateStatuses({ deps, services: events === services.events ? services : { ...services, events }, kv, media, context });
  federateQuotes({ deps, services: events === services.events ? services : { ...services, events }, media, context });
  const replies = remoteReplies({ deps, services, actors, kv, context, lookup });
  const forwarded = forwardedCreates({ deps, services, actors, kv, context, lookup, relays: services.relays });
  services.statusQueries.useRemoteReplies(replies);
  const resolver = statusResolver({ deps, services, actors, context, lookup, resolved: replies.fetchLater });
  services.search.useStatusResolver(resolver);

  const verifiedKeys = new VerifiedKeys(kv);
  const inboxFront = createInboxFront({
    federation,
    kv,
    keys: verifiedKeys,
    dispatcher: inboxDispatcher,
    recipientExists: async (identifier) => identifier === INSTANCE_ACTOR_IDENTIFIER || (await accountFor(identifier)) !== null,
    sharedInboxSigner: INSTANCE_ACTOR_IDENTIFIER,
    signatureMaxAgeMs: SIGNATURE_MAX_AGE_MS,
    compactActivities: optimisations.compactActivities,
  });
  const inboxGuard = {
    domainPolicy: services.domainPolicy,
    monitor: services.federationMonitor,
    maxBodyBytes: config.limits.maxJsonBodyBytes,
    ...(optimisations.inboxFront && { front: inboxFront.answer }),
    forwarded: forwarded.accept,
    signedParties: (json: unknown) =>
      signedPartiesOf(json, federation.createContext(new URL(config.origin), { serving: true }), {
        compact: optimisations.compactActivities,
      }),
    keys: verifiedKeys,
    keyFetches: new KeyFetchBudget({}, () => deps.clock.now().getTime()),
  };
  const handle: FallbackHandler = async (request, info) =>
    (await discovery(request)) ?? guardInbox(request, inboxGuard, handleFedify, info);
  const fetchGate = { authorizedFetch: config.authorizedFetch, open: openInSecureMode };
  const handleFedify = async (request: Request): Promise<Response | null> => {
    if (request.method !== "GET" && request.method !== "HEAD") return answerFedify(request, { serving: true });
    const fetched = lazyFetchSigner(() =>
      fetchSignerOf(federation.createContext(request, { serving: true }), { domainPolicy: services.domainPolicy }),
    );
    const response = await gateFetch(request, fetched.signer, fetchGate, () =>
      answerFedify(request, { serving: true, fetchSigner: fetched.signer }),
    );
    // The answer depends on who signed: no shared cache may hand it to another.
    if (response !== null && fetched.asked()) response.headers.set("cache-control", "private");
    return response;
  };
  const answerFedify = async (request: Request, contextData: FederationContextData): Promise<Response | null> => {
    const response = await federation.fetch(request, {
      contextData,
      onNotFound: () => new Response(null, { status: 404, headers: { "x-kith-fedify": "not-found" } }),
      // A browser asking for an actor or a status: the route table or a later fallback serves the page.
      onNotAcceptable: () => new Response(null, { status: 406, headers: { "x-kith-fedify": "not-acceptable" } }),
    });
    if (response.headers.get("x-kith-fedify")) return null;
    return response;
  };

  async function webFinger(resource: string): Promise<WebFingerDocument | null> {
    return lookupWebFinger(resource, { fetch: safeFetch, userAgent });
  }

  async function lookup(identifier: string): Promise<APObject | null> {
    const ctx = context();
    let url: string | null = URL.canParse(identifier) && /^https?:/.test(identifier) ? identifier : null;
    if (url === null) {
      const handle = parseHandle(identifier);
      if (!handle) return null;
      const jrd = await webFinger(`acct:${handle.username}@${handle.host}`);
      url = jrd?.selfActivityPubUrl ?? null;
      if (url === null) return null;
    }
    try {
      // Signed with the instance actor's key (its first, RSA, pair), as Mastodon's "authorized fetch" requires.
      const documentLoader = await ctx.getDocumentLoader({ identifier: INSTANCE_ACTOR_IDENTIFIER });
      return await ctx.lookupObject(url, { documentLoader });
    } catch (error) {
      logger.debug("Lookup of {identifier} failed: {error}", { identifier, error });
      return null;
    }
  }

  const follow = async (username: string, identifier: string, followOptions: { immediate?: boolean } = {}) =>
    sendFollow(context(), deps, actors, { username, actor: await lookup(identifier), ...followOptions });

  federateGraphEvents({ deps, events, context, media, keys });
  const directory = createRemoteDirectory({ deps, services, actors, context, lookup });
  services.remoteAccounts.bind(directory);

  return {
    federation,
    keys,
    kv,
    fetch: safeFetch,
    handle,
    context,
    webFinger,
    lookup,
    sendFollow: follow,
    directory,
    remoteReplies: replies,
    statusResolver: resolver,
    inboxFront: inboxFront.counts,
    jobs: { [REPLIES_QUEUE]: replies.work, [POLL_RESULTS_QUEUE]: posts.pollResultsJob, [FORWARDED_CREATES_QUEUE]: forwarded.work },
  };
}
