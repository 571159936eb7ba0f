import type { HttpMessageSignaturesSpec, KvKey } from "@fedify/fedify";
import { FEDIFY_KV_PREFIXES } from "./fedify-kv-prefixes.js";

/**
 * The HTTP signature form tried first with a server whose form is not known
 * yet. Fedify's default, given to it explicitly so that its deliveries and
 * the batched ones (batch-delivery.ts) knock the same way.
 */
export const FIRST_KNOCK: HttpMessageSignaturesSpec = "rfc9421";

/** Where the form each server accepted is kept (by origin, under this prefix of the key-value store); Fedify's default prefix. */
export const SIGNATURE_SPEC_PREFIX: KvKey = FEDIFY_KV_PREFIXES.httpMessageSignaturesSpec;
