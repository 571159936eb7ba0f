import { type Federation, exportJwk } from "@fedify/fedify";
import type { FederationContextData } from "../../platform/federation/federation-context-data.js";
import type { PrivateKeyResolver } from "../../platform/federation/sealed-keys.js";

/**
 * The private key of one of this server's key ids, as Fedify names them
 * (`<actor>#main-key`, `<actor>#key-2`): the actor's key pairs from the
 * key-pairs dispatcher, matched by id. Null for a key id that is not ours or
 * no longer exists.
 */
export function actorPrivateKeys(federation: Federation<FederationContextData>, origin: string): PrivateKeyResolver {
  return async (keyId) => {
    if (!URL.canParse(keyId)) return null;
    const actorUri = new URL(keyId);
    actorUri.hash = "";
    const ctx = federation.createContext(new URL(origin), { serving: false });
    const actor = ctx.parseUri(actorUri);
    if (actor?.type !== "actor") return null;
    const pairs = await ctx.getActorKeyPairs(actor.identifier);
    const pair = pairs.find((candidate) => candidate.keyId.href === keyId);
    return pair ? exportJwk(pair.privateKey) : null;
  };
}
