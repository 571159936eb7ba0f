import type { Context } from "@fedify/fedify";
import { Endpoints, Group, Person, Service } from "@fedify/fedify/vocab";
import type { AccountRow } from "../../ports/storage-schema.js";
import type { LocalActor } from "./actors.js";

/**
 * A local actor as secure mode serves it to a fetch that is not signed (or
 * whose signature did not verify): what a server needs to verify the
 * actor's signatures and reach it, and nothing of its profile, as Mastodon
 * restricts it (id, type, preferredUsername, inbox, endpoints, public key).
 * Keys are fetched unsigned by servers that cannot sign before they know
 * them, so they stay open.
 */
export async function keysOnlyActorOf<T>(ctx: Context<T>, account: AccountRow): Promise<LocalActor> {
  const identifier = account.username;
  const keys = await ctx.getActorKeyPairs(identifier);
  const values = {
    id: ctx.getActorUri(identifier),
    preferredUsername: account.username,
    inbox: ctx.getInboxUri(identifier),
    endpoints: new Endpoints({ sharedInbox: ctx.getInboxUri() }),
    publicKey: keys[0]?.cryptographicKey ?? null,
    assertionMethods: keys.map((key) => key.multikey),
  };
  if (account.actor_type === "Service") return new Service(values);
  if (account.actor_type === "Group") return new Group(values);
  return new Person(values);
}
