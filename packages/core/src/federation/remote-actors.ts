import { type Actor, Group, Service } from "@fedify/fedify/vocab";
import type { ServiceDeps } from "../services/deps.js";
import { type RemoteActorFields, upsertRemoteAccount } from "../storage/repositories/federation-writes.js";
import type { AccountRow } from "../ports/storage-schema.js";
import { acceptableRemoteUsername, httpUrlOrNull, remoteDisplayName, remoteProfileHtml } from "./remote-actor-fields.js";

function textOf(value: unknown): string {
  return value === null || value === undefined ? "" : String(value);
}

function actorTypeOf(actor: Actor): string {
  if (actor instanceof Service) return "Service";
  if (actor instanceof Group) return "Group";
  return "Person";
}

/**
 * What Kith keeps of a remote actor, made safe to show (remote-actor-fields.ts);
 * null when it has no http(s) id or its username is not one a handle can name.
 */
export function remoteActorFields(actor: Actor): RemoteActorFields | null {
  if (!actor.id || httpUrlOrNull(actor.id.href) === null) return null;
  const username = acceptableRemoteUsername(textOf(actor.preferredUsername) || actor.id.pathname.split("/").filter(Boolean).at(-1) || "");
  if (username === null) return null;
  const url = actor.url instanceof URL ? actor.url.href : (actor.url?.href?.href ?? null);
  return {
    uri: actor.id.href,
    username,
    domain: actor.id.host.toLowerCase(),
    displayName: remoteDisplayName(textOf(actor.name)),
    note: remoteProfileHtml(textOf(actor.summary)),
    actorType: actorTypeOf(actor),
    locked: actor.manuallyApprovesFollowers ?? false,
    discoverable: actor.discoverable ?? false,
    url: httpUrlOrNull(url),
    inboxUrl: httpUrlOrNull(actor.inboxId?.href),
    sharedInboxUrl: httpUrlOrNull(actor.endpoints?.sharedInbox?.href),
    alsoKnownAs: actor.aliasIds.map((alias) => alias.href).filter((alias) => httpUrlOrNull(alias) !== null),
  };
}

/** Stores a remote actor as an account, or refreshes its row; null when it has no id. */
export async function rememberRemoteActor(deps: Pick<ServiceDeps, "storage" | "ids" | "clock">, actor: Actor): Promise<AccountRow | null> {
  const fields = remoteActorFields(actor);
  if (!fields) return null;
  return upsertRemoteAccount(deps.storage.db, deps.ids.next("user"), fields, deps.clock.now().toISOString());
}
