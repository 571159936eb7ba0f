import type { InboxContext } from "@fedify/fedify";
import { type Activity, isActor } from "@fedify/fedify/vocab";
import { getLogger } from "../../logging.js";
import type { ServiceDeps } from "../service-deps.js";
import type { KithServices } from "../core-services.js";
import type { AccountRow } from "../../ports/storage-schema.js";
import type { FederationContextData } from "../../platform/federation/federation-context-data.js";
import { requireNetwork } from "../../platform/federation/inbox-request-pass.js";
import type { RemoteActors } from "./remote-actors.js";
import { sameOrigin } from "../statuses/remote-statuses.js";
import { storedSenderOf } from "./stored-senders.js";

const logger = getLogger(["federation", "inbox"]);

export interface ActivitySenderDeps {
  readonly deps: Pick<ServiceDeps, "storage" | "clock">;
  readonly services: Pick<KithServices, "domainPolicy">;
  readonly actors: RemoteActors;
}

/**
 * The remote account that sent an activity, after the checks every
 * listener makes: not of a blocked domain, not one of ours, the activity's
 * id on its actor's server, not suspended. An actor not known yet is
 * fetched and stored, by a worker when this is a request's pass. Null when
 * the activity is to be ignored.
 */
export async function activitySenderOf(
  ctx: InboxContext<FederationContextData>,
  env: ActivitySenderDeps,
  activity: Activity,
): Promise<AccountRow | null> {
  const actorId = activity.actorId;
  if (!actorId || ctx.parseUri(actorId)?.type === "actor") return null;
  const policy = await env.services.domainPolicy.policyFor(actorId.host);
  if (policy.blocked) {
    logger.info("Ignored an activity from {host}: {reason}", { host: actorId.host, reason: policy.reason });
    return null;
  }
  if (activity.id && !sameOrigin(activity.id, actorId)) return null;
  const known = await storedSenderOf(ctx, env.deps.storage.db, activity, env.deps.clock.now());
  if (known) return known.suspended_at === null ? known : null;
  requireNetwork(ctx, actorId.href);
  const actor = await activity.getActor({ documentLoader: ctx.documentLoader, suppressError: true });
  if (!actor || !isActor(actor) || actor.id?.href !== actorId.href) return null;
  const account = await env.actors.remember(actor);
  return account && account.suspended_at === null ? account : null;
}
