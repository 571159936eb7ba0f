import { type Actor, Group, Service } from "@fedify/fedify/vocab";
import type { ServiceDeps } from "../services/deps.js";
import { type RemoteActorFields, upsertRemoteAccount } from "../storage/repositories/federation-writes.js";
import type { AccountRow } from "../storage/schema.js";

function textOf(value: unknown): string {
  return value === null || value === undefined ? "" : String(value);
}

function actorTypeOf(actor: Actor): string {
  if (actor instanceof Service) return "Service";
  if (actor instanceof Group) return "Group";
  return "Person";
}

/** What Kith keeps of a remote actor; null when it has no id. */
export function remoteActorFields(actor: Actor): RemoteActorFields | null {
  if (!actor.id) return null;
  const url = actor.url instanceof URL ? actor.url.href : (actor.url?.href?.href ?? null);
  return {
    uri: actor.id.href,
    username: textOf(actor.preferredUsername) || actor.id.pathname.split("/").filter(Boolean).at(-1) || "unknown",
    domain: actor.id.host.toLowerCase(),
    displayName: textOf(actor.name),
    note: textOf(actor.summary),
    actorType: actorTypeOf(actor),
    locked: actor.manuallyApprovesFollowers ?? false,
    discoverable: actor.discoverable ?? false,
    url,
    inboxUrl: actor.inboxId?.href ?? null,
    sharedInboxUrl: actor.endpoints?.sharedInbox?.href ?? null,
    alsoKnownAs: actor.aliasIds.map((alias) => alias.href),
  };
}

/** Stores a remote actor as an account, or refreshes its row; null when it has no id. */
export async function rememberRemoteActor(deps: Pick<ServiceDeps, "storage" | "ids" | "clock">, actor: Actor): Promise<AccountRow | null> {
  const fields = remoteActorFields(actor);
  if (!fields) return null;
  return upsertRemoteAccount(deps.storage.db, deps.ids.next("user"), fields, deps.clock.now().toISOString());
}
