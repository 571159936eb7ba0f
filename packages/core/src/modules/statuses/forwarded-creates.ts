import { type Context, verifyRequest } from "@fedify/fedify";
import { type Object as APObject, isActor } from "@fedify/fedify/vocab";
import { z } from "zod";
import { getLogger } from "../../logging.js";
import type { JobHandler } from "../../ports/queue.js";
import type { AccountRow } from "../../ports/storage-schema.js";
import type { FederationContextData } from "../../platform/federation/federation-context-data.js";
import { SIGNATURE_MAX_AGE } from "../../platform/federation/inbox-guard.js";
import { fetchedKeyCache } from "../../platform/federation/fetched-key-cache.js";
import { FORWARDED_CREATES_QUEUE } from "../../platform/federation/queue-names.js";
import type { SqlKvStore } from "../../platform/federation/sql-kv-store.js";
import { tombstoneKey } from "../../platform/federation/tombstones.js";
import { INSTANCE_ACTOR_IDENTIFIER } from "../federation/actors.js";
import { findAccountByUri } from "../federation/federation-writes-store.js";
import type { RelaySubscriptions } from "../federation/relay-directory.js";
import type { RemoteActors } from "../federation/remote-actors.js";
import type { ServiceDeps } from "../service-deps.js";
import { findStatusByUri } from "./federated-statuses-store.js";
import { type RemoteStatusDeps, isIncomingStatusObject, sameOrigin, storeRemoteStatus } from "./remote-statuses.js";

const logger = getLogger(["federation", "inbox"]);

/** What is read of a forwarded Create before anything is fetched: its actor and its object's id. */
const forwardedCreateSchema = z.object({
  type: z.literal("Create"),
  actor: z.url({ protocol: /^https?$/ }),
  object: z.union([z.url({ protocol: /^https?$/ }), z.looseObject({ id: z.url({ protocol: /^https?$/ }) })]),
});

const jobSchema = z.object({ objectId: z.string(), actorId: z.string() });
type ForwardedCreateJob = z.infer<typeof jobSchema>;

export interface ForwardedCreatesOptions extends RemoteStatusDeps {
  readonly deps: RemoteStatusDeps["deps"] & Pick<ServiceDeps, "queue">;
  /** Stores the remote actors met (checking a new one's handle). */
  readonly actors: RemoteActors;
  readonly kv: SqlKvStore;
  readonly context: () => Context<FederationContextData>;
  /** Fetches a remote object (signed by the instance actor, over the safe fetch). */
  readonly lookup: (identifier: string) => Promise<APObject | null>;
  readonly relays: Pick<RelaySubscriptions, "isRelayActor">;
}

export interface ForwardedCreates {
  /** The inbox guard's `forwarded`: true when the Create was taken, to be fetched on the queue. */
  accept(request: Request, body: Uint8Array, json: unknown): Promise<boolean>;
  readonly work: JobHandler;
}

/**
 * A Create that a relay forwards without its author's own signature (no
 * Linked Data signature, no integrity proof) is vouched for only by the
 * relay, which may not speak for the author. As Mastodon does with such
 * forwarded activities, it is not refused: when the relay's HTTP signature
 * verifies (a relay this server subscribes to), the status is fetched from
 * its own server by its id, on the queue, and stored only when what that
 * server serves is the actor's. A forged Create (an object its origin does
 * not have, or has as another's) stores nothing.
 */
export function forwardedCreates(options: ForwardedCreatesOptions): ForwardedCreates {
  const db = options.deps.storage.db;

  /** The relay that signed the request, when its signature verifies and it is one this server subscribes to. */
  async function relaySigner(request: Request, body: Uint8Array): Promise<URL | null> {
    const ctx = options.context();
    const documentLoader = await ctx.getDocumentLoader({ identifier: INSTANCE_ACTOR_IDENTIFIER });
    const copy = new Request(request.url, { method: "POST", headers: request.headers, body: body as BodyInit });
    const key = await verifyRequest(copy, {
      documentLoader,
      contextLoader: ctx.contextLoader,
      timeWindow: SIGNATURE_MAX_AGE,
      keyCache: fetchedKeyCache(options.kv, ctx),
    }).catch(() => null);
    const owner = key?.ownerId ?? null;
    if (!key?.id || !owner || owner.origin !== key.id.origin) return null;
    return (await options.relays.isRelayActor(owner)) ? owner : null;
  }

  async function accept(request: Request, body: Uint8Array, json: unknown): Promise<boolean> {
    const parsed = forwardedCreateSchema.safeParse(json);
    if (!parsed.success) return false;
    const actor = new URL(parsed.data.actor);
    const object = new URL(typeof parsed.data.object === "string" ? parsed.data.object : parsed.data.object.id);
    // An actor only speaks for objects of its own server.
    if (!sameOrigin(object, actor)) return false;
    const relay = await relaySigner(request, body);
    if (!relay) return false;
    logger.debug("{relay} forwarded a Create of {object} by {actor}: fetched from its server", {
      relay: relay.href,
      object: object.href,
      actor: actor.href,
    });
    await options.deps.queue.enqueue(FORWARDED_CREATES_QUEUE, { objectId: object.href, actorId: actor.href } satisfies ForwardedCreateJob, {
      deduplicationKey: `forwarded-create:${actor.href} ${object.href}`,
      maxAttempts: 3,
    });
    return true;
  }

  async function authorAt(uri: string): Promise<AccountRow | null> {
    const known = await findAccountByUri(db, uri);
    if (known) return known.suspended_at === null ? known : null;
    const actor = await options.lookup(uri);
    if (!actor || !isActor(actor) || actor.id?.href !== uri) return null;
    const account = await options.actors.remember(actor);
    return account && account.suspended_at === null ? account : null;
  }

  async function fetchAndStore(job: ForwardedCreateJob): Promise<void> {
    if (await findStatusByUri(db, job.objectId)) return;
    const host = new URL(job.objectId).host;
    if ((await options.services.domainPolicy.policyFor(host)).blocked) return;
    if ((await options.kv.get(tombstoneKey(job.objectId))) !== undefined) return;
    const object = await options.lookup(job.objectId);
    if (!isIncomingStatusObject(object) || object.id?.href !== job.objectId || object.attributionId?.href !== job.actorId) {
      logger.info("Dropped a forwarded Create of {object} by {actor}: its server does not have it as theirs", {
        object: job.objectId,
        actor: job.actorId,
      });
      return;
    }
    const author = await authorAt(job.actorId);
    if (!author) return;
    await storeRemoteStatus(options.context(), options, object, author);
  }

  return {
    accept,
    async work(payload) {
      const job = jobSchema.safeParse(payload);
      if (job.success) await fetchAndStore(job.data);
    },
  };
}
