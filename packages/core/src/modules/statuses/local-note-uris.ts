import type { Context } from "@fedify/fedify";
import { Object as APObject } from "@fedify/fedify/vocab";

/** Where our statuses are served as ActivityPub objects: the Note dispatcher's path (kith-federation.ts). */
export const NOTE_PATH = "/users/{identifier}/statuses/{id}";

/**
 * NOTE_PATH with two plain segments: URI template values of unreserved characters only (Fedify's router matches
 * nothing else there unescaped), no escapes to decode, no trailing slash.
 */
const PLAIN_NOTE_PATH = /^\/users\/([\w.~-]+)\/statuses\/([\w.~-]+)$/;

/** The values of one of our statuses' URIs. */
export interface LocalNoteValues {
  readonly identifier: string;
  readonly id: string;
}

/**
 * The author's identifier and the status's id when `uri` is one of our statuses'
 * URIs, or null. Fedify's `parseUri` answers this too, but by trying its URI
 * templates one after another, the costliest step of storing a Like
 * (bench/READING.md, "Measurements behind the code"); a plain path of our origins is read here, and anything unusual
 * (escapes, a trailing slash) is still left to Fedify.
 */
export function localNoteAt(ctx: Pick<Context<unknown>, "origin" | "canonicalOrigin" | "parseUri">, uri: URL): LocalNoteValues | null {
  if (uri.origin !== ctx.origin && uri.origin !== ctx.canonicalOrigin) return null;
  const plain = PLAIN_NOTE_PATH.exec(uri.pathname);
  if (plain?.[1] && plain[2]) return { identifier: plain[1], id: plain[2] };
  const parsed = ctx.parseUri(uri);
  // Only the status dispatcher's objects (registered as Object): a status's activity is an object of another route.
  if (parsed?.type !== "object" || parsed.typeId.href !== APObject.typeId.href) return null;
  const { identifier, id } = parsed.values;
  return identifier && id ? { identifier, id } : null;
}
