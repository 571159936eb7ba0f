import type { Federation } from "@fedify/fedify";
import type { FederationContextData } from "../../platform/federation/federation-context-data.js";
import type { SigningIdentity } from "../../platform/federation/document-loader.js";
import { INSTANCE_ACTOR_IDENTIFIER } from "./actors.js";

/**
 * The instance actor's RSA key, which signs every fetch made on behalf of no
 * one in particular (Mastodon's "representative" account does the same).
 * Read through the key-pairs dispatcher at each fetch, so a replaced key is
 * used from the next fetch on; the key store keeps it imported in memory.
 */
export function instanceSigningIdentity(federation: Federation<FederationContextData>, origin: string): () => Promise<SigningIdentity> {
  return async () => {
    const ctx = federation.createContext(new URL(origin), { serving: false });
    const rsa = (await ctx.getActorKeyPairs(INSTANCE_ACTOR_IDENTIFIER)).find((pair) => pair.privateKey.algorithm.name === "RSASSA-PKCS1-v1_5");
    if (!rsa) throw new Error("The instance actor has no RSA key to sign fetches with");
    return { keyId: rsa.keyId, privateKey: rsa.privateKey };
  };
}
