import { INSTANCE_ACTOR_IDENTIFIER } from "./actors.js";

/** An actor document: `/users/{identifier}` and nothing under it. */
const ACTOR_PATH = /^\/users\/[^/]+$/;
const INSTANCE_ACTOR_PATH = `/users/${INSTANCE_ACTOR_IDENTIFIER}`;

/**
 * What secure mode serves to unsigned fetches: the instance actor and its
 * collections (other servers fetch its key to verify the fetches it signs,
 * and cannot sign first what they fetch to check a signature), and the
 * actor documents, which then hold only their keys (keys-only-actors.ts).
 * Everything else under `/users/` (statuses, collections, activities) needs a
 * signature. WebFinger, NodeInfo and host-meta are no ActivityPub documents
 * and are never gated.
 */
export function openInSecureMode(path: string): boolean {
  if (path === INSTANCE_ACTOR_PATH || path.startsWith(`${INSTANCE_ACTOR_PATH}/`)) return true;
  if (ACTOR_PATH.test(path)) return true;
  return !path.startsWith("/users/");
}
