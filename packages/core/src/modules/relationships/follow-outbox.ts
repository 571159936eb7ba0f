import type { Context } from "@fedify/fedify";
import { Follow, type Object as APObject, isActor } from "@fedify/fedify/vocab";
import type { ServiceDeps } from "../service-deps.js";
import { findLocalActorAccount } from "../federation/federation-reads-store.js";
import { insertFollowRequest } from "../federation/federation-writes-store.js";
import type { FederationContextData } from "../../platform/federation/federation-context-data.js";
import type { RemoteActors } from "../federation/remote-actors.js";

export interface SentFollow {
  /** The Follow activity's id, kept as the follow request's `uri`. */
  readonly followUri: string;
  /** The followed actor's account row id (the remote account is stored or refreshed). */
  readonly targetAccountId: string;
}

/**
 * A local account asks to follow a remote actor: the remote account is
 * stored, a follow request recorded (it becomes a follow when the Accept
 * arrives) and a Follow sent, through the queue unless `immediate`. Null
 * when the local account or the remote actor is unknown.
 */
export async function sendFollow(
  ctx: Context<FederationContextData>,
  deps: Pick<ServiceDeps, "storage" | "ids" | "clock">,
  actors: RemoteActors,
  input: { readonly username: string; readonly actor: APObject | null; readonly immediate?: boolean },
): Promise<SentFollow | null> {
  const local = await findLocalActorAccount(deps.storage.db, input.username);
  const actor = input.actor;
  if (!local || !actor || !isActor(actor) || !actor.id) return null;
  const remote = await actors.remember(actor);
  if (!remote) return null;
  const requestId = deps.ids.next("followRequest");
  const actorUri = ctx.getActorUri(local.username);
  const followUri = new URL(`${actorUri.href}#follows/${requestId}`);
  await insertFollowRequest(
    deps.storage.db,
    { id: requestId, accountId: local.id, targetAccountId: remote.id, uri: followUri.href },
    deps.clock.now().toISOString(),
  );
  await ctx.sendActivity({ identifier: local.username }, actor, new Follow({ id: followUri, actor: actorUri, object: actor.id }), {
    ...(input.immediate && { immediate: true }),
  });
  return { followUri: followUri.href, targetAccountId: remote.id };
}
