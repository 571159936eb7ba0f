import type { Context, KvKey } from "@fedify/fedify";
import {
  type Activity,
  Add,
  Announce,
  Create,
  Delete,
  Like,
  Note,
  PUBLIC_COLLECTION,
  Question,
  type Recipient,
  Remove,
  Tombstone,
  Undo,
} from "@fedify/fedify/vocab";
import { parseJsonArray } from "../../mastodon/serializers/status.js";
import { getLogger } from "../../logging.js";
import type { ServiceDeps } from "../service-deps.js";
import type { JobHandler } from "../../ports/queue.js";
import type { NewLocalPost } from "../../platform/events/domain-events.js";
import type { KithServices } from "../core-services.js";
import { findAccountById, findAccountRows } from "../accounts/accounts-store.js";
import { listMentionTargets } from "../federation/federation-reads-store.js";
import { listRemoteFollowers, listRemoteVoters } from "./federated-statuses-store.js";
import { findPoll, findPollOfStatus, listOwnVotes } from "./polls-store.js";
import { findFavourite } from "./favourites-store.js";
import { writeFlag } from "../../platform/storage/boolean-columns.js";
import { findStatus } from "./statuses-store.js";
import type { AccountRow, StatusRow } from "../../ports/storage-schema.js";
import type { MediaUrls } from "../federation/actors.js";
import type { FederationContextData } from "../../platform/federation/federation-context-data.js";
import { instantOf } from "../../platform/federation/instant.js";
import { actorUriOf, flag, followersUriOf, statusUriOf } from "./notes.js";
import { StatusUpdate } from "../federation/peer-json-ld.js";
import { type StatusObjectSource, boostAddressing, loadStatusObjects, statusObjectOf } from "./status-objects.js";
import type { SqlKvStore } from "../../platform/federation/sql-kv-store.js";

const logger = getLogger(["federation", "outbox"]);

export interface StatusOutboxOptions {
  readonly deps: Pick<ServiceDeps, "storage" | "config" | "clock" | "queue">;
  readonly services: Pick<KithServices, "events" | "domainPolicy" | "relays">;
  readonly kv: SqlKvStore;
  readonly media: MediaUrls | null;
  /** A context for work outside a request. */
  readonly context: () => Context<FederationContextData>;
}

type RecipientAccount = Pick<AccountRow, "id" | "uri" | "domain" | "inbox_url" | "shared_inbox_url">;

import { POLL_RESULTS_QUEUE } from "../../platform/federation/queue-names.js";

export { POLL_RESULTS_QUEUE };

/** Votes in this window go out as one Update: a popular poll does not send one per vote. */
export const POLL_RESULTS_DELAY_MS = 5_000;

function isPollResultsJob(payload: unknown): payload is { statusId: string } {
  return typeof payload === "object" && payload !== null && typeof (payload as { statusId?: unknown }).statusId === "string";
}

/** The key under which the id of a Like sent is kept until its Undo. */
function likeKey(accountId: string, statusId: string): KvKey {
  return ["kith", "sent-like", accountId, statusId];
}

/**
 * Sends what local accounts do with statuses to the servers that should hear of
 * it, in reaction to domain events: Create, Update and Delete of statuses
 * (Question for polls), Announce and its Undo for boosts, Like and its Undo,
 * votes on remote polls and the results of local ones (an Update of the
 * Question, from a queued job), Add and Remove on the featured collection. Each
 * activity goes, through the queue, to the author's remote followers (one
 * copy per server, by shared inbox) as the visibility allows, to the
 * mentioned remote accounts and to the author of the post it concerns;
 * never to local accounts or blocked domains.
 */
export function federateStatuses(options: StatusOutboxOptions): { readonly pollResultsJob: JobHandler } {
  const { deps, services, kv, media } = options;
  const db = deps.storage.db;
  const origin = deps.config.origin;
  const source: StatusObjectSource = { db, origin, media };

  function recipientOf(account: RecipientAccount): Recipient | null {
    if (account.domain === null || account.uri === null || account.inbox_url === null) return null;
    return {
      id: new URL(account.uri),
      inboxId: new URL(account.inbox_url),
      endpoints: { sharedInbox: account.shared_inbox_url ? new URL(account.shared_inbox_url) : null },
    };
  }

  async function audience(author: Pick<AccountRow, "id">, visibility: string, others: readonly (RecipientAccount | null | undefined)[]) {
    const accounts: RecipientAccount[] = visibility === "direct" ? [] : await listRemoteFollowers(db, author.id);
    const byId = new Map<string, RecipientAccount>();
    for (const account of [...accounts, ...others]) if (account) byId.set(account.id, account);
    const recipients: Recipient[] = [];
    for (const account of byId.values()) {
      const recipient = recipientOf(account);
      if (!recipient?.id) continue;
      if ((await services.domainPolicy.policyFor(recipient.id.host)).blocked) continue;
      recipients.push(recipient);
    }
    // As Mastodon: what is public also goes to the relays subscribed to, which pass it on.
    if (visibility === "public") recipients.push(...(await relayRecipients()));
    return recipients;
  }

  async function relayRecipients(): Promise<Recipient[]> {
    const admitted: Recipient[] = [];
    for (const inbox of await services.relays.acceptedInboxes()) {
      if (!(await services.domainPolicy.policyFor(inbox.host)).blocked) admitted.push({ id: inbox, inboxId: inbox });
    }
    return admitted;
  }

  async function send(author: AccountRow, recipients: readonly Recipient[], activity: Activity): Promise<void> {
    if (recipients.length === 0) return;
    // No fan-out job in between: the inboxes are queued from here, as batches (outbox-batch.ts), a few jobs for the
    // largest audience; a fan-out job would parse the activity back from JSON-LD only to do the same.
    await options.context().sendActivity({ identifier: author.username }, [...recipients], activity, {
      preferSharedInbox: true,
      fanout: "skip",
    });
    logger.debug("Queued {type} {id} for {count} recipients", {
      type: activity.constructor.name,
      id: activity.id?.href,
      count: recipients.length,
    });
  }

  async function localAuthor(accountId: string): Promise<AccountRow | null> {
    const account = await findAccountById(db, accountId);
    return account && account.domain === null ? account : null;
  }

  /** The remote accounts a status names: mentioned ones and the author it replies to. */
  async function namedAccounts(status: StatusRow): Promise<AccountRow[]> {
    const mentioned = (await listMentionTargets(db, [status.id])).map((target) => target.account.id);
    const ids = [...mentioned, ...(status.in_reply_to_account_id ? [status.in_reply_to_account_id] : [])];
    return remoteAccounts(ids);
  }

  /** The remote accounts among these: those another server is to hear of a status from. */
  async function remoteAccounts(ids: readonly string[]): Promise<AccountRow[]> {
    return (await findAccountRows(db, ids)).filter((account) => account.domain !== null);
  }

  async function authorOf(status: StatusRow): Promise<AccountRow | null> {
    return findAccountById(db, status.account_id);
  }

  /**
   * Who a new local status goes to, from what the event says of it: no read of the status, and none of its author
   * unless some other server is to hear of it (most statuses on a small server reach none).
   */
  async function audienceOfNewPost(accountId: string, post: NewLocalPost): Promise<Recipient[]> {
    const named = [...post.mentionedAccountIds, ...(post.inReplyToAccountId ? [post.inReplyToAccountId] : [])];
    const others = await remoteAccounts(named);
    return audience({ id: accountId }, post.visibility, others);
  }

  async function onCreated(statusId: string, accountId: string, post: NewLocalPost | undefined): Promise<void> {
    // Known before anything is read: most statuses on a small server reach no other server.
    const known = post ? await audienceOfNewPost(accountId, post) : null;
    if (known?.length === 0) return;
    const status = await findStatus(db, statusId);
    if (!status || !flag(status.local)) return;
    const author = await localAuthor(status.account_id);
    if (!author) return;
    if (status.reblog_of_id !== null) {
      const original = await findStatus(db, status.reblog_of_id);
      const announce = (await loadStatusObjects(source, [status])).activityOf(status);
      if (!original || !announce) return;
      const originalAuthor = await authorOf(original);
      await send(author, await audience(author, status.visibility, [originalAuthor]), announce);
      return;
    }
    const recipients = known ?? (await audience(author, status.visibility, await namedAccounts(status)));
    // Building the Note costs more than finding its audience: a status no other server is to hear of is never built.
    if (recipients.length === 0) return;
    // The same Create that `<status uri>/activity` serves, of the same object the status's own URI serves.
    const create = (await loadStatusObjects(source, [status])).activityOf(status);
    if (!create) return;
    await send(author, recipients, create);
  }

  async function onUpdated(statusId: string): Promise<void> {
    const status = await findStatus(db, statusId);
    if (!status || !flag(status.local) || status.reblog_of_id !== null) return;
    const author = await localAuthor(status.account_id);
    const object = await statusObjectOf(source, status);
    if (!author || !object?.id) return;
    const at = status.edited_at ?? status.updated_at;
    const update = new StatusUpdate({
      id: new URL(`${object.id.href}#updates/${Date.parse(at)}`),
      actor: object.attributionId,
      object,
      published: instantOf(at),
      tos: object.toIds,
      ccs: object.ccIds,
    });
    await send(author, await audience(author, status.visibility, await namedAccounts(status)), update);
  }

  async function onDeleted(event: {
    statusId: string;
    accountId: string;
    reblogOfId: string | null;
    visibility: string;
    reachedAccountIds?: readonly string[] | undefined;
  }) {
    const author = await localAuthor(event.accountId);
    if (!author) return;
    const actor = options.context().getActorUri(author.username);
    const followers = followersUriOf(origin, author.username);
    if (event.reblogOfId !== null) {
      // A boost goes with its status when the status is deleted: the status's Delete says enough then.
      const original = await findStatus(db, event.reblogOfId);
      const originalAuthor = original ? await authorOf(original) : null;
      const object = original && originalAuthor ? statusUriOf(origin, original, originalAuthor) : null;
      if (!object) return;
      const boostUri = new URL(`${origin}/users/${author.username}/statuses/${event.statusId}/activity`);
      const { to, cc } = boostAddressing(origin, author, event.visibility, originalAuthor ? actorUriOf(origin, originalAuthor) : null);
      const undo = new Undo({
        id: new URL(`${boostUri.href}#undo`),
        actor,
        object: new Announce({ id: boostUri, actor, object: new URL(object) }),
        tos: to,
        ccs: cc,
      });
      await send(author, await audience(author, event.visibility, [originalAuthor]), undo);
      return;
    }
    const noteUri = statusUriOf(origin, { id: event.statusId, uri: null, local: writeFlag(true) }, author);
    if (!noteUri) return;
    // The status's rows are gone; who it reached came with the event, so a direct status's Delete reaches those its Create did.
    const named = await remoteAccounts(event.reachedAccountIds ?? []);
    const del = new Delete({
      id: new URL(`${noteUri}#delete`),
      actor,
      object: new Tombstone({ id: new URL(noteUri) }),
      tos: [PUBLIC_COLLECTION],
      // Addressed as Mastodon addresses a Delete; the delivery list, not the addressing, reaches the others (their names stay private).
      ccs: [new URL(followers)],
    });
    await send(author, await audience(author, event.visibility, named), del);
  }

  /** A like or its undo, sent to the author of a remote status only (a local status's author already sees it). */
  async function onFavourite(accountId: string, statusId: string, removed: boolean): Promise<void> {
    // A remote account's Like (an incoming one) is its own server's to deliver: the status is not read for it.
    const liker = await localAuthor(accountId);
    if (!liker) return;
    const status = await findStatus(db, statusId);
    if (!status || flag(status.local)) return;
    const author = await authorOf(status);
    const object = author ? statusUriOf(origin, status, author) : null;
    if (!author || !object) return;
    const actor = options.context().getActorUri(liker.username);
    const key = likeKey(accountId, statusId);
    if (!removed) {
      const favourite = await findFavourite(db, accountId, statusId);
      if (!favourite) return;
      const id = new URL(`${actor.href}#likes/${favourite.id}`);
      await kv.set(key, id.href);
      await send(liker, await audience(liker, "direct", [author]), new Like({ id, actor, object: new URL(object) }));
      return;
    }
    const sent = await kv.get<string>(key);
    await kv.delete(key);
    const like = new Like({ ...(typeof sent === "string" && { id: new URL(sent) }), actor, object: new URL(object) });
    const undo = new Undo({ id: new URL(`${sent ?? `${actor.href}#likes/${statusId}`}/undo`), actor, object: like });
    await send(liker, await audience(liker, "direct", [author]), undo);
  }

  /**
   * A vote on a local poll (by anyone) has its results sent, later and
   * debounced; a local account's vote on a remote poll: one Note per choice,
   * named as the option, to the poll's author.
   */
  async function onVoted(accountId: string, pollId: string): Promise<void> {
    const poll = await findPoll(db, pollId);
    const status = poll ? await findStatus(db, poll.status_id) : null;
    if (poll && status && flag(status.local)) return queuePollResults(status.id);
    const voter = await localAuthor(accountId);
    if (!poll || !status || !voter) return;
    const author = await authorOf(status);
    const question = author ? statusUriOf(origin, status, author) : null;
    if (!author?.uri || !question) return;
    const actor = options.context().getActorUri(voter.username);
    const titles = parseJsonArray<string>(poll.options);
    const recipients = await audience(voter, "direct", [author]);
    for (const vote of await listOwnVotes(db, pollId, accountId)) {
      const id = new URL(`${actor.href}#votes/${vote.id}`);
      const note = new Note({
        id,
        attribution: actor,
        name: titles[vote.choice] ?? "",
        replyTarget: new URL(question),
        tos: [new URL(author.uri)],
      });
      await send(voter, recipients, new Create({ id: new URL(`${id.href}/activity`), actor, object: note, tos: [new URL(author.uri)] }));
    }
  }

  async function queuePollResults(statusId: string): Promise<void> {
    await deps.queue.enqueue(
      POLL_RESULTS_QUEUE,
      { statusId },
      { delayMs: POLL_RESULTS_DELAY_MS, deduplicationKey: `poll-results:${statusId}` },
    );
  }

  /**
   * A local poll's current results (voters, a count per option, whether it
   * closed) as an Update of its Question, as Mastodon sends them: to where
   * the status went and to the remote accounts that voted.
   */
  async function sendPollResults(statusId: string): Promise<void> {
    const status = await findStatus(db, statusId);
    if (!status || !flag(status.local) || status.reblog_of_id !== null) return;
    const [author, object, poll] = await Promise.all([
      localAuthor(status.account_id),
      statusObjectOf(source, status),
      findPollOfStatus(db, statusId),
    ]);
    if (!author || !(object instanceof Question) || !object.id || !poll) return;
    const now = deps.clock.now();
    const update = new StatusUpdate({
      id: new URL(`${object.id.href}#updates/results/${now.getTime()}-${crypto.randomUUID()}`),
      actor: object.attributionId,
      object,
      published: instantOf(now.toISOString()),
      tos: object.toIds,
      ccs: object.ccIds,
    });
    const voters = await listRemoteVoters(db, poll.id);
    await send(author, await audience(author, status.visibility, [...(await namedAccounts(status)), ...voters]), update);
  }

  async function onPin(accountId: string, statusId: string, removed: boolean): Promise<void> {
    const account = await localAuthor(accountId);
    const status = await findStatus(db, statusId);
    if (!account || !status || !["public", "unlisted"].includes(status.visibility)) return;
    const author = await authorOf(status);
    const object = author ? statusUriOf(origin, status, author) : null;
    if (!object) return;
    const ctx = options.context();
    const actor = ctx.getActorUri(account.username);
    const values = {
      id: new URL(`${actor.href}#${removed ? "unpins" : "pins"}/${statusId}/${deps.clock.now().getTime()}`),
      actor,
      object: new URL(object),
      target: ctx.getFeaturedUri(account.username),
      tos: [PUBLIC_COLLECTION],
      ccs: [ctx.getFollowersUri(account.username)],
    };
    await send(account, await audience(account, status.visibility, []), removed ? new Remove(values) : new Add(values));
  }

  const { events } = services;
  // A remote account's status is its own server's to deliver.
  events.on("status.created", (event) => (event.remoteStatus ? undefined : onCreated(event.statusId, event.accountId, event.post)));
  events.on("status.updated", (event) => onUpdated(event.statusId));
  events.on("status.deleted", (event) => onDeleted(event));
  // An incoming Like, or its Undo, is its own server's to deliver.
  events.on("favourite.created", async (event) => {
    if (!event.received) await onFavourite(event.accountId, event.statusId, false);
  });
  events.on("favourite.removed", async (event) => {
    if (!event.received) await onFavourite(event.accountId, event.statusId, true);
  });
  events.on("poll.voted", (event) => onVoted(event.accountId, event.pollId));
  events.on("poll.closed", async (event) => {
    const status = await findStatus(db, event.statusId);
    if (status && flag(status.local)) await queuePollResults(status.id);
  });
  events.on("pin.added", (event) => onPin(event.accountId, event.statusId, false));
  events.on("pin.removed", (event) => onPin(event.accountId, event.statusId, true));

  return {
    async pollResultsJob(payload) {
      if (isPollResultsJob(payload)) await sendPollResults(payload.statusId);
    },
  };
}
