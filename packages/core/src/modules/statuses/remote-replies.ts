import type { Context } from "@fedify/fedify";
import { type Object as APObject, Collection, isActor } from "@fedify/fedify/vocab";
import { getLogger } from "../../logging.js";
import type { RemoteRepliesFetcher } from "./status-queries.js";
import { findAccountByUri } from "../federation/federation-writes-store.js";
import { findStatusByUri } from "./federated-statuses-store.js";
import { findStatus } from "./statuses-store.js";
import type { AccountRow, StatusRow } from "../../ports/storage-schema.js";
import { INSTANCE_ACTOR_IDENTIFIER } from "../federation/actors.js";
import { collectionItemIds } from "../../platform/federation/collection-items.js";
import type { FederationContextData } from "../../platform/federation/federation-context-data.js";
import { flag } from "./notes.js";
import type { RemoteActors } from "../federation/remote-actors.js";
import { type RemoteStatusDeps, isIncomingStatusObject, sameOrigin, storeRemoteStatus } from "./remote-statuses.js";
import type { ServiceDeps } from "../service-deps.js";
import type { JobHandler } from "../../ports/queue.js";
import type { SqlKvStore } from "../../platform/federation/sql-kv-store.js";
import { tombstoneKey } from "../../platform/federation/tombstones.js";

import { REPLIES_QUEUE } from "../../platform/federation/queue-names.js";

export { REPLIES_QUEUE };

/** Pages of a `replies` collection read per status. */
const MAX_PAGES = 5;
/** Replies taken per status. */
const MAX_ITEMS = 40;
/** Levels of replies to replies followed below the status first asked for (0: its direct replies only). */
const MAX_DEPTH = 2;
/** A status's replies are not fetched again sooner than this (every view of a thread asks). */
const REFETCH_AFTER_MS = 15 * 60 * 1000;

const logger = getLogger(["federation", "replies"]);

interface RepliesJob {
  readonly statusId: string;
  readonly depth: number;
}

function isRepliesJob(payload: unknown): payload is RepliesJob {
  if (typeof payload !== "object" || payload === null) return false;
  const job = payload as { statusId?: unknown; depth?: unknown };
  return typeof job.statusId === "string" && typeof job.depth === "number";
}

export interface RemoteRepliesOptions extends RemoteStatusDeps {
  readonly deps: RemoteStatusDeps["deps"] & Pick<ServiceDeps, "queue">;
  /** Stores the remote actors met (checking a new one's handle). */
  readonly actors: RemoteActors;
  readonly kv: SqlKvStore;
  readonly context: () => Context<FederationContextData>;
  /** Fetches a remote object (signed by the instance actor, over the safe fetch). */
  readonly lookup: (identifier: string) => Promise<APObject | null>;
}

/**
 * The replies of remote statuses, read from their `replies` collections on the
 * queue when a thread is opened or a status resolved, and stored as remote
 * statuses, so the thread shows them the next time. Bounded: pages and items
 * per status, levels of replies to replies, one fetch per post a while. Each
 * reply is fetched from its own server (an item embedded by another server
 * is not trusted), must answer the status, and its author is of its origin.
 */
export function remoteReplies(options: RemoteRepliesOptions): RemoteRepliesFetcher & { readonly work: JobHandler } {
  const { deps, kv, lookup } = options;
  const db = deps.storage.db;

  async function remoteStatus(statusId: string): Promise<(StatusRow & { uri: string }) | null> {
    const row = await findStatus(db, statusId);
    if (!row || flag(row.local) || row.uri === null || row.reblog_of_id !== null) return null;
    return { ...row, uri: row.uri };
  }

  async function queue(statusId: string, depth: number): Promise<void> {
    if (!(await remoteStatus(statusId))) return;
    const recent = ["kith", "replies-fetched", statusId] as const;
    if ((await kv.get(recent)) !== undefined) return;
    await kv.setFor(recent, true, REFETCH_AFTER_MS);
    await deps.queue.enqueue(REPLIES_QUEUE, { statusId, depth } satisfies RepliesJob, {
      deduplicationKey: `replies:${statusId}`,
      maxAttempts: 1,
    });
  }

  async function authorOf(uri: URL): Promise<AccountRow | null> {
    const known = await findAccountByUri(db, uri.href);
    if (known) return known.suspended_at === null ? known : null;
    const actor = await lookup(uri.href);
    if (!actor || !isActor(actor) || actor.id?.href !== uri.href) return null;
    const account = await options.actors.remember(actor);
    return account && account.suspended_at === null ? account : null;
  }

  /** Stores one reply of `parent` fetched from `uri`; the stored status's id, or null when it is not one. */
  async function storeReply(parent: { uri: string }, uri: URL): Promise<string | null> {
    const known = await findStatusByUri(db, uri.href);
    if (known) return known.id;
    if ((await options.services.domainPolicy.policyFor(uri.host)).blocked) return null;
    if ((await kv.get(tombstoneKey(uri.href))) !== undefined) return null;
    const object = await lookup(uri.href);
    if (!isIncomingStatusObject(object) || !object.id || object.id.href !== uri.href) return null;
    if (object.replyTargetId?.href !== parent.uri) return null;
    if (!object.attributionId || !sameOrigin(object.id, object.attributionId)) return null;
    const author = await authorOf(object.attributionId);
    if (!author) return null;
    return storeRemoteStatus(options.context(), options, object, author);
  }

  async function fetchReplies(job: RepliesJob): Promise<void> {
    const parent = await remoteStatus(job.statusId);
    if (!parent) return;
    if ((await options.services.domainPolicy.policyFor(new URL(parent.uri).host)).blocked) return;
    const object = await lookup(parent.uri);
    if (!isIncomingStatusObject(object) || object.id?.href !== parent.uri || !object.repliesId) return;
    const documentLoader = await options.context().getDocumentLoader({ identifier: INSTANCE_ACTOR_IDENTIFIER });
    const replies = await object.getReplies({ documentLoader, suppressError: true });
    if (!(replies instanceof Collection)) return;
    const uris = await collectionItemIds(replies, { wanted: MAX_ITEMS, maxPages: MAX_PAGES }, documentLoader);
    for (const uri of uris) {
      const reply = await storeReply(parent, uri).catch((error: unknown) => {
        logger.debug("A reply of {post} was not stored: {error}", { post: parent.uri, error });
        return null;
      });
      if (reply && job.depth < MAX_DEPTH) await queue(reply, job.depth + 1);
    }
  }

  return {
    fetchLater: (statusId) => queue(statusId, 0),
    async work(payload) {
      if (isRepliesJob(payload)) await fetchReplies(payload);
    },
  };
}
