import type { KvKey } from "@fedify/fedify";

/**
 * The prefixes of Fedify's key-value entries that Kith reads or writes
 * itself, given to Fedify (its `kvPrefixes` option) rather than left to its
 * defaults, so that both sides name the same entries whatever Fedify's
 * defaults become. They are Fedify's defaults, so entries written before
 * they were stated stay where they were. What Fedify writes under them is
 * not promised: `fedify-internals.canary.test.ts` checks it.
 */
export const FEDIFY_KV_PREFIXES = {
  /** The public keys Fedify fetched (read by verified-keys.ts; kept in memory by sql-kv-store.ts). */
  publicKey: ["_fedify", "publicKey"],
  /** Activities Fedify handled (read and written by inbox-front.ts). */
  activityIdempotence: ["_fedify", "activityIdempotence"],
  /** The signature form each server accepted (read and written by batch-delivery.ts). */
  httpMessageSignaturesSpec: ["_fedify", "httpMessageSignaturesSpec"],
  /** Fetched documents (document-loader.ts's cache, which Kith gives Fedify as its loader). */
  remoteDocument: ["_fedify", "remoteDocument"],
} as const satisfies Record<string, KvKey>;
