import type { InboxContext, InboxListenerSetters } from "@fedify/fedify";
import { type Activity, Add, Announce, Create, Delete, Like, Note, Remove, Undo, Update, isActor } from "@fedify/fedify/vocab";
import { parseJsonArray, pollExpired } from "../../mastodon/serializers/status.js";
import { getLogger } from "../../logging.js";
import { favouriteNotice } from "../notifications/favourite-notice.js";
import { deleteActNotifications } from "../notifications/notifications-store.js";
import { deletePin, findStatusByUri, insertPin, listStatusIdsOfAccount } from "./federated-statuses-store.js";
import { findPollOfStatus, insertVote } from "./polls-store.js";
import { addFavourite, removeFavourite } from "./favourites-store.js";
import { type LikedLocalPost, findAccountByUri, retireRemoteAccount } from "../federation/federation-writes-store.js";
import { bumpStatusCounter, countAccountStatuses, deleteStatusRows, findStatus, insertCountedStatus } from "./statuses-store.js";
import { writeFlag } from "../../platform/storage/boolean-columns.js";
import type { AccountRow, StatusRow } from "../../ports/storage-schema.js";
import type { FederationContextData } from "../../platform/federation/federation-context-data.js";
import { flag } from "./notes.js";
import type { RemoteActors } from "../federation/remote-actors.js";
import {
  type RemoteStatusDeps,
  isIncomingStatusObject,
  knownStatusAt,
  localStatusAt,
  sameOrigin,
  storeRemoteStatus,
  updateRemotePost,
  visibilityOf,
} from "./remote-statuses.js";
import type { SqlKvStore } from "../../platform/federation/sql-kv-store.js";
import type { RelaySubscriptions } from "../federation/relay-directory.js";
import { likedStatusReadWithSender, postReadWithSender, storedSenderOf, tombstoneReadWithSender } from "../federation/stored-senders.js";
import { tombstoneKey } from "../../platform/federation/tombstones.js";
import { readProperty, requireNetwork } from "../../platform/federation/inbox-request-pass.js";
import { findBoostBy } from "./boosts-store.js";
import { documentOf } from "../federation/raw-documents.js";

const logger = getLogger(["federation", "inbox"]);

const DAY_MS = 24 * 60 * 60 * 1000;

type Ctx = InboxContext<FederationContextData>;

export interface StatusInboxDeps extends RemoteStatusDeps {
  /** Stores the remote actors met (checking a new one's handle). */
  readonly actors: RemoteActors;
  readonly kv: SqlKvStore;
  /** Tells a relay's Announce (another server's status passed on) from a boost. */
  readonly relays?: Pick<RelaySubscriptions, "isRelayActor">;
}

/**
 * Statuses from other servers, in the statuses and related tables: Create and
 * Update of Notes and Questions, Delete, Announce, Like and their Undo, votes
 * on local polls, Add and Remove on a remote featured collection.
 *
 * Every handler is idempotent, keyed by the activity's or object's id (the
 * same activity twice, or through the shared and a personal inbox, has one
 * effect); a Delete is remembered so a Create arriving after it is dropped,
 * and an Undo so its Like or Announce arriving again or late is dropped;
 * an actor only speaks for objects of its own host and never changes a local
 * object; activities from blocked domains are ignored.
 */
export function listenForPosts(inbox: InboxListenerSetters<FederationContextData>, env: StatusInboxDeps): void {
  const db = env.deps.storage.db;

  /** Whether `uri` was deleted or undone; for the most frequent activities, read with their sender. */
  async function tombstoned(ctx: Ctx, activity: Activity, uri: URL): Promise<boolean> {
    const readWithSender = await tombstoneReadWithSender(ctx, db, activity, uri, env.deps.clock.now());
    return readWithSender ?? (await env.kv.get(tombstoneKey(uri.href))) !== undefined;
  }

  /** The id of the status stored at `uri`, if any; for the most frequent activities, read with their sender. */
  async function storedStatusAt(ctx: Ctx, activity: Activity, uri: URL): Promise<string | null> {
    const readWithSender = await postReadWithSender(ctx, db, activity, uri, env.deps.clock.now());
    return readWithSender !== undefined ? readWithSender : ((await findStatusByUri(db, uri.href))?.id ?? null);
  }

  /** Remembered for a while only: an activity later than the retention is no longer a reordered or repeated delivery. */
  async function bury(uri: URL): Promise<void> {
    await env.kv.setFor(tombstoneKey(uri.href), true, env.deps.config.tombstoneRetentionDays * DAY_MS);
  }

  async function blocked(uri: URL | null): Promise<boolean> {
    if (!uri) return true;
    const policy = await env.services.domainPolicy.policyFor(uri.host);
    if (policy.blocked) logger.info("Ignored an activity from {host}: {reason}", { host: uri.host, reason: policy.reason });
    return policy.blocked;
  }

  /** The sending actor as a stored account, after the common checks; null when the activity is to be ignored. */
  async function senderOf(ctx: Ctx, activity: Activity, fetch = false): Promise<AccountRow | null> {
    const actorId = activity.actorId;
    if (!actorId || (await blocked(actorId))) return null;
    if (ctx.parseUri(actorId)?.type === "actor") return null;
    // An activity names its own id on its actor's server.
    if (activity.id && !sameOrigin(activity.id, actorId)) return null;
    const known = await storedSenderOf(ctx, db, activity, env.deps.clock.now());
    if (known && !fetch) return known.suspended_at === null ? known : null;
    // In a request's pass the actor is not fetched: the activity goes to a worker, without the refused fetch logged as a failure.
    requireNetwork(ctx, actorId.href);
    const actor = await activity.getActor({ documentLoader: ctx.documentLoader, suppressError: true });
    if (!actor || !isActor(actor) || actor.id?.href !== actorId.href) return known;
    const account = await env.actors.remember(actor);
    return account && account.suspended_at === null ? account : null;
  }

  async function onCreate(ctx: Ctx, create: Create): Promise<void> {
    const source = documentOf(create);
    const author = await senderOf(ctx, create);
    if (!author?.uri) return;
    const object = await readProperty(ctx, (options) => create.getObject(options));
    if (!isIncomingStatusObject(object) || !object.id) return;
    if (!sameOrigin(object.id, create.actorId) || object.attributionId?.href !== author.uri) {
      logger.info("Dropped a Create of {object} by {actor}: not its author", { object: object.id.href, actor: author.uri });
      return;
    }
    if (await tombstoned(ctx, create, object.id)) return;
    if (object instanceof Note && object.name !== null && object.content === null && (await onVote(ctx, object, author))) return;
    await storeRemoteStatus(ctx, env, object, author, await storedStatusAt(ctx, create, object.id), { source });
  }

  /** A vote on a local poll: a Note named as an option, replying to the Question. True when it was one. */
  async function onVote(ctx: Ctx, note: Note, voter: AccountRow): Promise<boolean> {
    const question = await localStatusAt(ctx, db, note.replyTargetId);
    if (!question || !note.id) return false;
    const poll = await findPollOfStatus(db, question.id);
    if (!poll) return false;
    if (pollExpired(poll, env.deps.clock.now())) return true;
    const choice = parseJsonArray<string>(poll.options).indexOf(String(note.name));
    if (choice < 0) return true;
    const counted = await env.deps.storage.transaction((trx) =>
      insertVote(
        trx,
        {
          id: env.deps.ids.next("pollVote"),
          pollId: poll.id,
          accountId: voter.id,
          choice,
          uri: note.id?.href ?? "",
          multiple: flag(poll.multiple),
        },
        env.deps.clock.now().toISOString(),
      ),
    );
    // The poll's results go out again (debounced) to the servers that have it.
    if (counted) await env.services.events.emit({ type: "poll.voted", accountId: voter.id, pollId: poll.id, statusId: question.id });
    return true;
  }

  async function onUpdate(ctx: Ctx, update: Update): Promise<void> {
    const author = await senderOf(ctx, update);
    if (!author?.uri) return;
    const object = await readProperty(ctx, (options) => update.getObject(options));
    if (!isIncomingStatusObject(object) || !object.id) return;
    if (!sameOrigin(object.id, update.actorId) || object.attributionId?.href !== author.uri) return;
    const current = await findStatusByUri(db, object.id.href);
    if (!current || current.account_id !== author.id || flag(current.local)) return;
    await updateRemotePost(ctx, env, object, current, author);
  }

  async function removeStatus(row: StatusRow): Promise<void> {
    const boosts = await env.deps.storage.transaction(async (trx) => {
      const removed = await deleteStatusRows(trx, [row.id]);
      if (row.in_reply_to_id) await bumpStatusCounter(trx, row.in_reply_to_id, "replies_count", -1);
      if (row.reblog_of_id) {
        await bumpStatusCounter(trx, row.reblog_of_id, "reblogs_count", -1);
        await deleteActNotifications(trx, row.account_id, "reblog", row.reblog_of_id);
      }
      await countAccountStatuses(trx, row.account_id, -1, null);
      for (const boost of removed) await countAccountStatuses(trx, boost.account_id, -1, null);
      return removed;
    });
    for (const gone of [...boosts, row]) {
      await env.services.events.emit({
        type: "status.deleted",
        statusId: gone.id,
        accountId: gone.account_id,
        reblogOfId: gone.reblog_of_id,
        visibility: gone.visibility,
      });
    }
  }

  /**
   * An actor deleted on its own server (Mastodon's Delete of the actor, signed by it): the account is marked
   * suspended, which also makes a repeated Delete a no-op, and its follows and statuses go.
   */
  async function removeActor(account: AccountRow): Promise<void> {
    if (!(await env.deps.storage.transaction((trx) => retireRemoteAccount(trx, account.id, env.deps.clock.now().toISOString())))) return;
    const ids = await listStatusIdsOfAccount(db, account.id);
    logger.info("{actor} was deleted on its server; removing its {count} posts", { actor: account.uri, count: ids.length });
    for (const id of ids) {
      // A boost of one of its own statuses went with that status already.
      const row = await findStatus(db, id);
      if (row) await removeStatus(row);
    }
  }

  async function onDelete(ctx: Ctx, del: Delete): Promise<void> {
    const objectId = del.objectId;
    const author = await senderOf(ctx, del);
    if (!objectId || !del.actorId || !sameOrigin(objectId, del.actorId)) return;
    if (!author) return;
    if (objectId.href === del.actorId.href) {
      await removeActor(author);
      return;
    }
    // Remembered even when nothing is stored yet: the Create may still be on its way.
    await bury(objectId);
    const row = await findStatusByUri(db, objectId.href);
    if (!row || row.account_id !== author.id || flag(row.local)) return;
    await removeStatus(row);
  }

  async function onAnnounce(ctx: Ctx, announce: Announce): Promise<void> {
    const source = documentOf(announce);
    const booster = await senderOf(ctx, announce);
    if (!booster || !announce.id || !announce.objectId) return;
    if ((await storedStatusAt(ctx, announce, announce.id)) !== null || (await tombstoned(ctx, announce, announce.id))) return;
    let original = await knownStatusAt(ctx, db, announce.objectId);
    if (!original) {
      // A remote status not seen yet: fetched from its own server, so it is what its author wrote; by a worker when this
      // is a request's pass.
      requireNetwork(ctx, announce.objectId.href);
      const object = await announce.getObject({ documentLoader: ctx.documentLoader, suppressError: true });
      // A group forwarding what a member wrote (FEP-1b12, Lemmy): the member's Create, handled as received from them,
      // and shown as the group's boost so its followers see it. Fedify fetched the Create again from its own server
      // when it was not the group's.
      if (object instanceof Create && booster.actor_type === "Group") {
        original = await onForwardedCreate(ctx, object, source);
        if (!original || (await findBoostBy(db, booster.id, original.id))) return;
      } else {
        if (!isIncomingStatusObject(object) || !object.id || !object.attributionId || !sameOrigin(object.id, object.attributionId)) return;
        if (await blocked(object.id)) return;
        const author = await findOrFetchAuthor(ctx, object.attributionId);
        if (!author) return;
        const stored = await storeRemoteStatus(ctx, env, object, author);
        original = stored ? await findStatus(db, stored) : null;
      }
    }
    if (!original || original.reblog_of_id !== null || !["public", "unlisted"].includes(original.visibility)) return;
    // A relay passes statuses on with Announce, as Mastodon takes it: the status is kept, no boost of the relay's.
    if (booster.uri && (await env.relays?.isRelayActor(new URL(booster.uri)))) return;
    const id = env.deps.ids.next("status");
    const now = env.deps.clock.now().toISOString();
    const target = original;
    try {
      await env.services.batchedWrites.transaction(async (trx) => {
        const row = {
          id,
          account_id: booster.id,
          uri: announce.id?.href ?? null,
          local: writeFlag(false),
          reblog_of_id: target.id,
          visibility: visibilityOf(announce, booster.uri ? new URL(`${booster.uri}/followers`) : null),
          created_at: announce.published ? new Date(String(announce.published)).toISOString() : now,
          updated_at: now,
        };
        await insertCountedStatus(trx, row, now);
        await bumpStatusCounter(trx, target.id, "reblogs_count", 1);
      });
    } catch (error) {
      if (await findStatusByUri(db, announce.id.href)) return;
      throw error;
    }
    await env.services.events.emit({ type: "status.created", statusId: id, accountId: booster.id });
  }

  /**
   * A Create a group forwarded: its status stored as if its author had sent it (Fedify fetched the Create from the
   * author's server when it came from another one); the status, or null when it is not to be kept.
   */
  async function onForwardedCreate(ctx: Ctx, create: Create, source: unknown): Promise<StatusRow | null> {
    const object = await readProperty(ctx, (options) => create.getObject(options));
    if (!isIncomingStatusObject(object) || !object.id || !object.attributionId || !create.actorId) return null;
    if (!sameOrigin(object.id, create.actorId) || object.attributionId.href !== create.actorId.href) return null;
    if ((await blocked(object.id)) || (await tombstoned(ctx, create, object.id))) return null;
    const known = await findStatusByUri(db, object.id.href);
    if (known) return known;
    const author = await findOrFetchAuthor(ctx, object.attributionId);
    if (!author) return null;
    const stored = await storeRemoteStatus(ctx, env, object, author, null, { source });
    return stored ? await findStatus(db, stored) : null;
  }

  async function findOrFetchAuthor(ctx: Ctx, uri: URL): Promise<AccountRow | null> {
    const known = await findAccountByUri(db, uri.href);
    if (known) return known.suspended_at === null ? known : null;
    const actor = await ctx.lookupObject(uri.href).catch(() => null);
    if (!actor || !isActor(actor) || actor.id?.href !== uri.href) return null;
    return env.actors.remember(actor);
  }

  /** The local post a Like is of, read with its sender when it could be. */
  async function likedLocalPost(ctx: Ctx, like: Like): Promise<LikedLocalPost | null> {
    const uri = like.objectId;
    if (!uri) return null;
    const readWithSender = await likedStatusReadWithSender(ctx, db, like, uri, env.deps.clock.now());
    if (readWithSender === undefined) return localStatusAt(ctx, db, uri);
    return readWithSender && flag(readWithSender.local) ? readWithSender : null;
  }

  async function onLike(ctx: Ctx, like: Like): Promise<void> {
    const liker = await senderOf(ctx, like);
    if (!liker || !like.id || (await tombstoned(ctx, like, like.id))) return;
    // Likes of remote statuses are their servers' business.
    const status = await likedLocalPost(ctx, like);
    if (!status || status.reblog_of_id !== null || status.visibility === "direct") return;
    const favourite = { id: env.deps.ids.next("favourite"), accountId: liker.id, statusId: status.id, uri: like.id.href };
    const at = env.deps.clock.now();
    const notice = favouriteNotice(env.deps.ids, at, liker.id, status);
    // Committed with the other activities of the same moment, its author's notification with it.
    const added = await env.services.batchedWrites.transaction((trx) => addFavourite(trx, favourite, at.toISOString(), notice));
    if (added)
      await env.services.events.emit({
        type: "favourite.created",
        accountId: liker.id,
        statusId: status.id,
        statusAccountId: status.account_id,
        notificationId: added.notificationId,
        received: true,
      });
  }

  async function onUndo(ctx: Ctx, undo: Undo): Promise<void> {
    const objectId = undo.objectId;
    if (!objectId || !undo.actorId || !sameOrigin(objectId, undo.actorId)) return;
    const object = await readProperty(ctx, (options) => undo.getObject(options));
    if (!(object instanceof Like || object instanceof Announce)) return;
    if (object.actorId?.href !== undo.actorId.href) return;
    const actor = await senderOf(ctx, undo);
    if (!actor) return;
    // Remembered even when nothing is stored: the Like or Announce may still be on its way, or come again.
    await bury(objectId);
    if (object instanceof Like) {
      const status = await localStatusAt(ctx, db, object.objectId);
      const removed = await env.deps.storage.transaction(
        async (trx) =>
          (await removeFavourite(trx, actor.id, { uri: objectId.href })) ??
          (status ? await removeFavourite(trx, actor.id, { statusId: status.id }) : null),
      );
      if (removed) await env.services.events.emit({ type: "favourite.removed", accountId: actor.id, statusId: removed, received: true });
      return;
    }
    const boost = await findStatusByUri(db, objectId.href);
    if (boost && boost.account_id === actor.id && boost.reblog_of_id !== null && !flag(boost.local)) await removeStatus(boost);
  }

  /** Add or Remove on the sender's own featured collection: its pins, of its own statuses. */
  async function onFeatured(ctx: Ctx, activity: Add | Remove): Promise<void> {
    const account = await senderOf(ctx, activity, true);
    if (!account?.uri || !activity.targetId || !activity.objectId) return;
    const actor = await activity.getActor({ documentLoader: ctx.documentLoader, suppressError: true });
    if (!actor || !isActor(actor) || actor.featuredId?.href !== activity.targetId.href) return;
    const status = await findStatusByUri(db, activity.objectId.href);
    if (!status || status.account_id !== account.id || flag(status.local)) return;
    if (activity instanceof Add)
      await insertPin(db, { id: env.deps.ids.next("pin"), accountId: account.id, statusId: status.id }, env.deps.clock.now().toISOString());
    else await deletePin(db, account.id, status.id);
  }

  inbox
    .on(Create, (ctx, create) => onCreate(ctx, create))
    .on(Update, (ctx, update) => onUpdate(ctx, update))
    .on(Delete, (ctx, del) => onDelete(ctx, del))
    .on(Announce, (ctx, announce) => onAnnounce(ctx, announce))
    .on(Like, (ctx, like) => onLike(ctx, like))
    .on(Undo, (ctx, undo) => onUndo(ctx, undo))
    .on(Add, (ctx, add) => onFeatured(ctx, add))
    .on(Remove, (ctx, remove) => onFeatured(ctx, remove));
}
