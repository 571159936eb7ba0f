import type { InboxContext, InboxListenerSetters } from "@fedify/fedify";
import { Accept, type Actor, Block, Follow, Reject, Undo, isActor } from "@fedify/fedify/vocab";
import { getLogger } from "../../logging.js";
import type { ServiceDeps } from "../service-deps.js";
import type { KithServices } from "../core-services.js";
import { findLocalActorAccount } from "../federation/federation-reads-store.js";
import { followBarrier } from "./relationships-store.js";
import {
  deleteFollow,
  findAccountByUri,
  findFollowingByUri,
  insertFollow,
  insertFollowRequest,
  takeFollowRequest,
} from "../federation/federation-writes-store.js";
import type { AccountRow } from "../../ports/storage-schema.js";
import { type GraphInboxDeps, undoBlock } from "./graph-inbox.js";
import type { FederationContextData } from "../../platform/federation/federation-context-data.js";
import { flag } from "../statuses/notes.js";
import type { RemoteActors } from "../federation/remote-actors.js";
import { deleteFollowNotifications } from "../notifications/notifications-store.js";

const logger = getLogger(["federation", "inbox"]);

type Ctx = InboxContext<FederationContextData>;

export interface FollowInboxDeps {
  readonly deps: Pick<ServiceDeps, "storage" | "ids" | "clock">;
  readonly services: Pick<KithServices, "domainPolicy">;
  /** Stores the remote actors met (checking a new one's handle). */
  readonly actors: RemoteActors;
  /** For the Undo of a Block (one Undo listener serves every undone type). */
  readonly graph?: GraphInboxDeps;
}

/** The local account an actor URI names, if it is one of ours. */
async function localAccountAt(ctx: Ctx, deps: FollowInboxDeps, uri: URL | null): Promise<AccountRow | null> {
  if (!uri) return null;
  const parsed = ctx.parseUri(uri);
  if (parsed?.type !== "actor") return null;
  const account = await findLocalActorAccount(deps.deps.storage.db, parsed.identifier);
  return account && account.username === parsed.identifier ? account : null;
}

/** Stores (or refreshes) the remote actor as an account; null for local actors or ones without an id. */
async function rememberActor(ctx: Ctx, deps: FollowInboxDeps, actor: Actor): Promise<AccountRow | null> {
  if (!actor.id || ctx.parseUri(actor.id)?.type === "actor") return null;
  return deps.actors.remember(actor);
}

async function blocked(deps: FollowInboxDeps, uri: URL | null): Promise<boolean> {
  if (!uri) return true;
  const policy = await deps.services.domainPolicy.policyFor(uri.host);
  if (policy.blocked) logger.info("Ignored an activity from {host}: {reason}", { host: uri.host, reason: policy.reason });
  return policy.blocked;
}

async function limited(deps: FollowInboxDeps, domain: string | null): Promise<boolean> {
  return domain !== null && (await deps.services.domainPolicy.policyFor(domain)).limited;
}

async function onFollow(ctx: Ctx, deps: FollowInboxDeps, follow: Follow): Promise<void> {
  if (!follow.id || (await blocked(deps, follow.actorId))) return;
  const target = await localAccountAt(ctx, deps, follow.objectId);
  if (!target) return;
  const actor = await follow.getActor(ctx);
  if (!actor || !isActor(actor) || actor.id?.href !== follow.actorId?.href) return;
  const follower = await rememberActor(ctx, deps, actor);
  if (!follower) return;
  const targetUri = ctx.getActorUri(target.username);
  // A block either way, or the target's block of the follower's domain, answers Reject: the follower must not come back.
  if ((await followBarrier(deps.deps.storage.db, follower.id, target.id)) !== null) {
    const rejectId = new URL(`${targetUri.href}#rejects/${deps.deps.ids.next("followRequest")}`);
    await ctx.sendActivity({ identifier: target.username }, actor, new Reject({ id: rejectId, actor: targetUri, object: follow }));
    return;
  }
  const now = deps.deps.clock.now().toISOString();
  const row = { accountId: follower.id, targetAccountId: target.id, uri: follow.id.href };
  // As Mastodon: a limited account (or one of a limited domain) only asks, even to follow an unlocked account.
  if (flag(target.locked) || follower.silenced_at !== null || (await limited(deps, follower.domain))) {
    await insertFollowRequest(deps.deps.storage.db, { id: deps.deps.ids.next("followRequest"), ...row }, now);
    return;
  }
  const followId = deps.deps.ids.next("follow");
  await deps.deps.storage.transaction((trx) => insertFollow(trx, { id: followId, ...row }, now));
  await ctx.sendActivity(
    { identifier: target.username },
    actor,
    new Accept({ id: new URL(`${targetUri.href}#accepts/${followId}`), actor: targetUri, object: follow }),
  );
}

async function onUndo(ctx: Ctx, deps: FollowInboxDeps, undo: Undo): Promise<void> {
  if (await blocked(deps, undo.actorId)) return;
  const object = await undo.getObject(ctx);
  if (object instanceof Block && undo.actorId && deps.graph) return undoBlock(ctx, deps.graph, undo.actorId, object);
  if (!(object instanceof Follow) || object.actorId?.href !== undo.actorId?.href || !undo.actorId) return;
  const target = await localAccountAt(ctx, deps, object.objectId);
  const follower = await findAccountByUri(deps.deps.storage.db, undo.actorId.href);
  if (!target || !follower) return;
  await deps.deps.storage.transaction(async (trx) => {
    await deleteFollow(trx, follower.id, target.id);
    await takeFollowRequest(trx, follower.id, target.id);
    await deleteFollowNotifications(trx, follower.id, target.id);
  });
}

/**
 * Accept or Reject of a follow a local account asked for: the request
 * becomes a follow, or goes. The Follow is found by its URI (our own id, as
 * Mastodon does); an embedded Follow of another origin is not trusted.
 */
async function onAnswer(deps: FollowInboxDeps, answer: Accept | Reject): Promise<void> {
  if (!answer.actorId || !answer.objectId || (await blocked(deps, answer.actorId))) return;
  const db = deps.deps.storage.db;
  const target = await findAccountByUri(db, answer.actorId.href);
  if (!target) return;
  // Only a follow of the answering actor can be answered by it.
  const asked = await findFollowingByUri(db, answer.objectId.href, target.id);
  if (!asked) return;
  const now = deps.deps.clock.now().toISOString();
  await deps.deps.storage.transaction(async (trx) => {
    const request = await takeFollowRequest(trx, asked.accountId, target.id);
    if (answer instanceof Accept && request) await insertFollow(trx, { ...request, id: deps.deps.ids.next("follow") }, now);
    if (answer instanceof Reject) await deleteFollow(trx, asked.accountId, target.id);
  });
}

/**
 * Follows between servers, written to the follows and follow_requests
 * tables: an incoming Follow of a local account (a request when the account
 * is locked or the follower limited, else a follow answered with Accept), its Undo, and the Accept or
 * Reject of a follow a local account sent. Activities from blocked domains
 * are ignored.
 */
export function listenForFollows(inbox: InboxListenerSetters<FederationContextData>, deps: FollowInboxDeps): void {
  inbox
    .on(Follow, (ctx, follow) => onFollow(ctx, deps, follow))
    .on(Undo, (ctx, undo) => onUndo(ctx, deps, undo))
    .on(Accept, (_ctx, accept) => onAnswer(deps, accept))
    .on(Reject, (_ctx, reject) => onAnswer(deps, reject));
}
