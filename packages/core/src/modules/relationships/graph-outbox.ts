import { type Context, type SenderKeyPair, signObject } from "@fedify/fedify";
import { Accept, Block, Delete, Follow, Move, PUBLIC_COLLECTION, Reject, Undo, Update } from "@fedify/fedify/vocab";
import { getLogger } from "../../logging.js";
import type { ServiceDeps } from "../service-deps.js";
import type { DomainEvents } from "../../platform/events/domain-events.js";
import { findAccountById } from "../accounts/accounts-store.js";
import { pairExists } from "./relationships-store.js";
import { findFollowActivity, remoteAccountsKnowing, setFollowActivityUri } from "../federation/remote-graph-store.js";
import type { AccountRow } from "../../ports/storage-schema.js";
import { type MediaUrls, localActorOf, profileTexts } from "../federation/actors.js";
import { localEmojiTags } from "../emojis/emoji-tags.js";
import type { KeyPairStore } from "../federation/key-pairs.js";
import type { FederationContextData } from "../../platform/federation/federation-context-data.js";
import { actorUriOf } from "../statuses/notes.js";
import { recipientOf } from "../federation/recipients.js";

const logger = getLogger(["federation", "outbox"]);

export interface GraphOutboxDeps {
  readonly deps: Pick<ServiceDeps, "storage" | "config">;
  readonly events: DomainEvents;
  readonly context: () => Context<FederationContextData>;
  readonly media: MediaUrls | null;
  /** The local actors' keys, read directly where Fedify's key dispatcher no longer serves the actor (a suspended one). */
  readonly keys?: KeyPairStore;
}

type Pair = { readonly local: AccountRow; readonly remote: AccountRow };

/**
 * The social graph told to other servers, from the domain events the
 * services emit after their commits: follows (Follow, Undo, and the Accept
 * or Reject a local account gives a remote follower), blocks, profile
 * updates, moves and the removal of an account. Everything goes through
 * Fedify's queue, so a server that is down gets it later.
 */
export function federateGraphEvents(options: GraphOutboxDeps): void {
  const { deps, events, context } = options;
  const db = deps.storage.db;
  const origin = deps.config.origin;

  /** The two accounts when `localId` is ours and `remoteId` another server's; null otherwise. */
  async function pairOf(localId: string, remoteId: string): Promise<Pair | null> {
    const [local, remote] = await Promise.all([findAccountById(db, localId), findAccountById(db, remoteId)]);
    if (!local || !remote || local.domain !== null || remote.domain === null || !remote.uri) return null;
    return { local, remote };
  }

  const actorUri = (account: AccountRow): URL => context().getActorUri(account.username);
  const fresh = (account: AccountRow, kind: string): URL => new URL(`${actorUri(account).href}#${kind}/${crypto.randomUUID()}`);

  async function send(from: AccountRow, to: AccountRow, activity: Accept | Block | Follow | Reject | Undo): Promise<void> {
    await context().sendActivity({ identifier: from.username }, recipientOf(to), activity);
  }

  /** A Block already tells the other server to drop follows both ways; no separate Undo or Reject then. */
  async function blockedEitherWay(a: string, b: string): Promise<boolean> {
    return (await pairExists(db, "blocks", a, b)) || (await pairExists(db, "blocks", b, a));
  }

  events.on("follow.requested", async (event) => {
    const pair = await pairOf(event.accountId, event.targetAccountId);
    if (!pair) return;
    const request = await findFollowActivity(db, "follow_requests", pair.local.id, pair.remote.id);
    if (!request) return;
    const id = new URL(`${actorUri(pair.local).href}#follows/${request.id}`);
    await setFollowActivityUri(db, "follow_requests", request.id, id.href);
    await send(pair.local, pair.remote, new Follow({ id, actor: actorUri(pair.local), object: new URL(pair.remote.uri as string) }));
  });

  // A local account accepted a remote account's request (its Follow's id was kept on the request and the follow).
  events.on("follow.created", async (event) => {
    const pair = await pairOf(event.targetAccountId, event.accountId);
    if (!pair) return;
    const follow = await findFollowActivity(db, "follows", pair.remote.id, pair.local.id);
    if (!follow?.uri) return;
    const me = actorUri(pair.local);
    const object = new Follow({ id: new URL(follow.uri), actor: new URL(pair.remote.uri as string), object: me });
    await send(pair.local, pair.remote, new Accept({ id: new URL(`${me.href}#accepts/${follow.id}`), actor: me, object }));
  });

  events.on("follow.rejected", async (event) => {
    const pair = await pairOf(event.targetAccountId, event.accountId);
    if (!pair || !event.followUri) return;
    const me = actorUri(pair.local);
    const object = new Follow({ id: new URL(event.followUri), actor: new URL(pair.remote.uri as string), object: me });
    await send(pair.local, pair.remote, new Reject({ id: fresh(pair.local, "rejects"), actor: me, object }));
  });

  events.on("follow.removed", async (event) => {
    if (await blockedEitherWay(event.accountId, event.targetAccountId)) return;
    const outgoing = await pairOf(event.accountId, event.targetAccountId);
    if (outgoing) {
      // Unfollow: Undo of our Follow (a Follow id made now when the follow predates federation).
      const me = actorUri(outgoing.local);
      const id = event.followUri ? new URL(event.followUri) : fresh(outgoing.local, "follows");
      const object = new Follow({ id, actor: me, object: new URL(outgoing.remote.uri as string) });
      await send(outgoing.local, outgoing.remote, new Undo({ id: fresh(outgoing.local, "undo"), actor: me, object }));
      return;
    }
    const incoming = await pairOf(event.targetAccountId, event.accountId);
    if (incoming && event.followUri) {
      // Removed from followers: Mastodon's way of saying it is a Reject of the accepted Follow.
      const me = actorUri(incoming.local);
      const object = new Follow({ id: new URL(event.followUri), actor: new URL(incoming.remote.uri as string), object: me });
      await send(incoming.local, incoming.remote, new Reject({ id: fresh(incoming.local, "rejects"), actor: me, object }));
    }
  });

  const blockOf = (pair: Pair): Block =>
    new Block({ id: fresh(pair.local, "blocks"), actor: actorUri(pair.local), object: new URL(pair.remote.uri as string) });

  events.on("block.created", async (event) => {
    const pair = await pairOf(event.accountId, event.targetAccountId);
    if (pair) await send(pair.local, pair.remote, blockOf(pair));
  });

  events.on("block.removed", async (event) => {
    const pair = await pairOf(event.accountId, event.targetAccountId);
    if (pair)
      await send(pair.local, pair.remote, new Undo({ id: fresh(pair.local, "undo"), actor: actorUri(pair.local), object: blockOf(pair) }));
  });

  async function actorOf(account: AccountRow) {
    const moved = account.moved_to_account_id ? await findAccountById(db, account.moved_to_account_id) : null;
    const emojiTags = await localEmojiTags(db, origin, profileTexts(account));
    return localActorOf({ ctx: context(), account, movedTo: moved ? actorUriOf(origin, moved) : null, media: options.media, emojiTags });
  }

  // Profile changes go to every server with a follower, once per server (shared inboxes).
  events.on("account.updated", async (event) => {
    const account = await findAccountById(db, event.accountId);
    if (!account || account.domain !== null) return;
    const me = actorUri(account);
    const update = new Update({
      id: fresh(account, "updates"),
      actor: me,
      object: await actorOf(account),
      to: context().getFollowersUri(account.username),
    });
    await context().sendActivity({ identifier: account.username }, "followers", update, { preferSharedInbox: true });
  });

  events.on("account.moved", async (event) => {
    const [account, target] = await Promise.all([findAccountById(db, event.accountId), findAccountById(db, event.targetAccountId)]);
    if (!account || account.domain !== null || !target) return;
    const targetUri = actorUriOf(origin, target);
    if (!targetUri) return;
    const me = actorUri(account);
    const move = new Move({
      id: fresh(account, "moves"),
      actor: me,
      object: me,
      target: new URL(targetUri),
      to: context().getFollowersUri(account.username),
    });
    logger.info("{account} moved to {target}; telling its followers", { account: account.username, target: targetUri });
    await context().sendActivity({ identifier: account.username }, "followers", move, { preferSharedInbox: true });
  });

  // The account's rows and keys are removed once this returns: Fedify's queued messages carry the signing keys, so
  // the Delete is signed now and delivered later. Once per server, to every server that knows the account.
  events.on("account.deleting", async (event) => {
    const account = await findAccountById(db, event.accountId);
    if (!account || account.domain !== null) return;
    const known = await remoteAccountsKnowing(db, account.id);
    if (known.length === 0) return;
    const ctx = context();
    const me = actorUri(account);
    // Only suspended accounts are removed, and Fedify's key dispatcher serves no suspended actor: the keys are given
    // here, with the ids the actor document gave them (RSA for the HTTP signatures, Ed25519 for the integrity proof).
    const pairs = (await options.keys?.keysOf(account.id)) ?? [];
    const senders: SenderKeyPair[] = pairs.map((pair, i) => ({
      keyId: new URL(i === 0 ? "#main-key" : `#key-${i + 1}`, me),
      privateKey: pair.privateKey,
    }));
    let del = new Delete({ id: new URL(`${me.href}#delete`), actor: me, object: me, to: PUBLIC_COLLECTION });
    for (const [i, pair] of pairs.entries()) {
      if (pair.algorithm === "Ed25519") {
        del = await signObject(del, pair.privateKey, new URL(`#multikey-${i + 1}`, me), { contextLoader: ctx.contextLoader });
      }
    }
    if (senders.length === 0) return;
    logger.info("{account} is being removed; telling {count} remote accounts' servers", { account: account.username, count: known.length });
    await ctx.sendActivity(senders, known.map(recipientOf), del, { preferSharedInbox: true });
  });
}
