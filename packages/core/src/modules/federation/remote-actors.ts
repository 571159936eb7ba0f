import { type Actor, Group, Service } from "@fedify/fedify/vocab";
import type { ServiceDeps } from "../service-deps.js";
import { type RemoteActorFields, findAccountByUri, upsertRemoteAccount } from "./federation-writes-store.js";
import type { AccountRow } from "../../ports/storage-schema.js";
import { acceptableRemoteUsername, httpUrlOrNull, remoteDisplayName, remoteProfileHtml } from "./remote-actor-fields.js";
import type { RemoteHandles } from "./remote-handles.js";
import { embeddedTagsOf } from "./embedded-values.js";
import { rememberRemoteEmojis, remoteEmojisOf } from "../emojis/remote-emojis.js";



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

/** Stores remote actors as accounts. */
export class RemoteActors {
  readonly #deps: Pick<ServiceDeps, "storage" | "ids" | "clock">;
  readonly #handles: RemoteHandles;

  constructor(deps: Pick<ServiceDeps, "storage" | "ids" | "clock">, handles: RemoteHandles) {
    this.#deps = deps;
    this.#handles = handles;
  }

  /**
   * Stores an actor as an account, or refreshes its row. Null when it has no
   * usable id or username, or, for an actor not yet known, when its host's
   * WebFinger does not name it as the account its handle says.
   */
  async remember(actor: Actor): Promise<AccountRow | null> {
    const fields = remoteActorFields(actor);
    if (!fields) return null;
    const db = this.#deps.storage.db;
    // A known account keeps the handle it was checked with (refreshes change no username), so only new ones are asked.
    const known = await findAccountByUri(db, fields.uri);
    if (!known && !(await this.#handles.pointsBack(new URL(fields.uri), fields.username))) return null;
    // The emojis of its name and bio first, so the account's first render finds them.
    await rememberRemoteEmojis(db, this.#deps, await remoteEmojisOf(await embeddedTagsOf(actor), fields.domain));
    return upsertRemoteAccount(db, this.#deps.ids.next("user"), fields, this.#deps.clock.now().toISOString());
  }
}
