import type { Context } from "@fedify/fedify";
import { Follow, type Object as APObject, PUBLIC_COLLECTION, Undo, isActor } from "@fedify/fedify/vocab";
import { INSTANCE_ACTOR_IDENTIFIER } from "../federation/index.js";
import type { FederationContextData } from "../../platform/federation/federation-context-data.js";

// Loaded by the relay service when it first sends (`import()`): this file brings Fedify, which a server loads
// on its first federation use, not at start.

/** A relay as the activities address it. */
export interface RelayAddress {
  readonly inbox: URL;
  /** The relay's actor, followed itself (LitePub); null for Mastodon's kind, which is a Follow of the public collection. */
  readonly actor: URL | null;
  /** The id of the Follow that subscribes to it. */
  readonly follow: URL;
}

type Ctx = Context<FederationContextData>;

/** The id of a new Follow of a relay, on the instance actor, as Kith names the Follows it sends. */
export function relayFollowId(ctx: Ctx, serial: string): URL {
  return new URL(`${ctx.getActorUri(INSTANCE_ACTOR_IDENTIFIER).href}#relay-follows/${serial}`);
}

function followOf(ctx: Ctx, relay: RelayAddress): Follow {
  return new Follow({ id: relay.follow, actor: ctx.getActorUri(INSTANCE_ACTOR_IDENTIFIER), object: relay.actor ?? PUBLIC_COLLECTION });
}

/** Delivers (through the queue) an activity of the instance actor to the relay's inbox. */
async function deliver(ctx: Ctx, relay: RelayAddress, activity: Follow | Undo): Promise<void> {
  await ctx.sendActivity({ identifier: INSTANCE_ACTOR_IDENTIFIER }, { id: relay.actor ?? relay.inbox, inboxId: relay.inbox }, activity);
}

/** Subscribes: a Follow from the instance actor, of the public collection (Mastodon's relays) or of the relay's actor (LitePub's). */
export async function sendRelayFollow(ctx: Ctx, relay: RelayAddress): Promise<void> {
  await deliver(ctx, relay, followOf(ctx, relay));
}

/** Unsubscribes: the Undo of the Follow that subscribed. */
export async function sendRelayUndo(ctx: Ctx, relay: RelayAddress): Promise<void> {
  const actor = ctx.getActorUri(INSTANCE_ACTOR_IDENTIFIER);
  await deliver(ctx, relay, new Undo({ id: new URL(`${relay.follow.href}/undo`), actor, object: followOf(ctx, relay) }));
}

/** A fetched object as a relay's actor: its id and the inbox to follow it at (its shared inbox when it has one). */
export function relayActorOf(object: APObject | null): { readonly id: URL; readonly inbox: URL } | null {
  if (!object || !isActor(object) || !object.id) return null;
  const inbox = object.endpoints?.sharedInbox ?? object.inboxId;
  return inbox ? { id: object.id, inbox } : null;
}
