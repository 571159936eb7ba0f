import type { InboxContext, InboxListenerSetters } from "@fedify/fedify";
import { type Actor, Block, Move, Update, isActor } from "@fedify/fedify/vocab";
import { getLogger } from "../../logging.js";
import type { ServiceDeps } from "../service-deps.js";
import type { KithServices } from "../core-services.js";
import { findLocalActorAccount } from "../federation/federation-reads-store.js";
import { findAccountByUri } from "../federation/federation-writes-store.js";
import { setMovedTo } from "../federation/remote-graph-store.js";
import type { AccountRow } from "../../ports/storage-schema.js";
import { requireNetwork } from "../../platform/federation/inbox-request-pass.js";
import type { FederationContextData } from "../../platform/federation/federation-context-data.js";
import type { RemoteActors } from "../federation/remote-actors.js";

const logger = getLogger(["federation", "inbox"]);

type Ctx = InboxContext<FederationContextData>;

export interface GraphInboxDeps {
  readonly deps: Pick<ServiceDeps, "storage" | "ids" | "clock">;
  readonly services: Pick<KithServices, "domainPolicy" | "blocksMutes" | "migrations">;
  /** Stores the remote actors met (checking a new one's handle). */
  readonly actors: RemoteActors;
  /** Fetches an object anew from its origin (a Move's target must be read from its server, not from the activity). */
  readonly lookup: (identifier: string) => Promise<unknown>;
}

async function refused(deps: GraphInboxDeps, uri: URL | null): Promise<boolean> {
  if (!uri) return true;
  const policy = await deps.services.domainPolicy.policyFor(uri.host);
  if (policy.blocked) logger.info("Ignored an activity from {host}: {reason}", { host: uri.host, reason: policy.reason });
  return policy.blocked;
}

async function localAccountAt(ctx: Ctx, deps: GraphInboxDeps, uri: URL | null): Promise<AccountRow | null> {
  if (!uri) return null;
  const parsed = ctx.parseUri(uri);
  if (parsed?.type !== "actor") return null;
  const account = await findLocalActorAccount(deps.deps.storage.db, parsed.identifier);
  return account && account.username === parsed.identifier ? account : null;
}

/** The remote account of an activity's actor, stored (fetched when unknown); null for local or unreadable actors. */
async function remoteActorOf(ctx: Ctx, deps: GraphInboxDeps, activity: Block | Move): Promise<AccountRow | null> {
  if (!activity.actorId || ctx.parseUri(activity.actorId)?.type === "actor") return null;
  const known = await findAccountByUri(deps.deps.storage.db, activity.actorId.href);
  if (known) return known;
  const actor = await activity.getActor(ctx);
  if (!actor || !isActor(actor) || actor.id?.href !== activity.actorId.href) return null;
  return deps.actors.remember(actor);
}

/** A remote account blocks a local one: follows both ways end, and the block is kept (the local side sees `blocked_by`). */
async function onBlock(ctx: Ctx, deps: GraphInboxDeps, block: Block): Promise<void> {
  if (await refused(deps, block.actorId)) return;
  const target = await localAccountAt(ctx, deps, block.objectId);
  const blocker = target ? await remoteActorOf(ctx, deps, block) : null;
  if (!target || !blocker) return;
  await deps.services.blocksMutes.block(blocker.id, target.id);
}

/** Undo of a Block: only the blocker's own Block, of a local account, is lifted. */
export async function undoBlock(ctx: Ctx, deps: GraphInboxDeps, actorId: URL, block: Block): Promise<void> {
  if (block.actorId?.href !== actorId.href || (await refused(deps, actorId))) return;
  const target = await localAccountAt(ctx, deps, block.objectId);
  const blocker = await findAccountByUri(deps.deps.storage.db, actorId.href);
  if (!target || !blocker || blocker.domain === null) return;
  await deps.services.blocksMutes.unblock(blocker.id, target.id);
}

/**
 * Update of an actor: the stored copy is refreshed. Only an actor updating
 * itself counts; an Update of another actor (or one embedded from another
 * origin) changes nothing. Updates of statuses are handled elsewhere.
 */
async function onUpdate(ctx: Ctx, deps: GraphInboxDeps, update: Update): Promise<void> {
  if (!update.actorId || !update.objectId || update.objectId.href !== update.actorId.href) return;
  if (ctx.parseUri(update.actorId)?.type === "actor" || (await refused(deps, update.actorId))) return;
  // As Mastodon: an actor nobody here has met is not stored because it announced a change.
  if (!(await findAccountByUri(deps.deps.storage.db, update.actorId.href))) return;
  const object = await update.getObject(ctx);
  if (!object || !isActor(object) || object.id?.href !== update.actorId.href) return;
  await deps.actors.remember(object as Actor);
}

/**
 * Move of a remote account to another: believed only when the target, read
 * from its own server now, names the origin among its aliases. Then the old
 * account is marked moved and its local followers follow the new one.
 */
async function onMove(ctx: Ctx, deps: GraphInboxDeps, move: Move): Promise<void> {
  if (!move.actorId || move.objectId?.href !== move.actorId.href || !move.targetId) return;
  if (await refused(deps, move.actorId)) return;
  const origin = await findAccountByUri(deps.deps.storage.db, move.actorId.href);
  // Nobody here follows an account we have never seen: nothing to move.
  if (!origin || origin.domain === null) return;
  // The lookup makes a context of its own, past the request pass's loader: a Move is always handled by a worker.
  requireNetwork(ctx, move.targetId.href);
  const target = await deps.lookup(move.targetId.href);
  if (!target || !isActor(target) || target.id?.href !== move.targetId.href) return;
  if (!target.aliasIds.some((alias) => alias.href === move.actorId?.href)) {
    logger.info("Refused a Move of {origin}: {target} does not name it as an alias", { origin: origin.uri, target: move.targetId.href });
    return;
  }
  const local = ctx.parseUri(target.id);
  const moved =
    local?.type === "actor"
      ? await findLocalActorAccount(deps.deps.storage.db, local.identifier)
      : await deps.actors.remember(target);
  if (!moved || moved.id === origin.id) return;
  await setMovedTo(deps.deps.storage.db, origin.id, moved.id, deps.deps.clock.now().toISOString());
  await deps.services.migrations.moveLocalFollowers(origin.id, moved.id);
}

/** Blocks, profile updates and moves from other servers. Undo(Block) comes through the Undo listener ({@link undoBlock}). */
export function listenForGraph(inbox: InboxListenerSetters<FederationContextData>, deps: GraphInboxDeps): void {
  inbox
    .on(Block, (ctx, block) => onBlock(ctx, deps, block))
    .on(Update, (ctx, update) => onUpdate(ctx, deps, update))
    .on(Move, (ctx, move) => onMove(ctx, deps, move));
}
