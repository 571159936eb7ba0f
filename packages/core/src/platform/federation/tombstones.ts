import type { KvKey } from "@fedify/fedify";

/**
 * Where a deleted remote object's id is remembered, so its Create arriving later is dropped; and the id of an
 * undone Like or Announce, so the activity arriving again (or late) does not count.
 */
export function tombstoneKey(uri: string): KvKey {
  return ["kith", "tombstone", uri];
}
