import type { ChannelRow } from "./channel-store.js";
import { handlesTaken } from "./channel-store.js";
import type { GroupsDb } from "./group-tables-store.js";

/** A channel's usernames, of both kinds: as an account's, 1 to 30 letters, digits or underscores. */
export const CHANNEL_USERNAME = /^[A-Za-z0-9_]{1,30}$/;
const MAX_LENGTH = 30;

/**
 * A free global username for a channel the server names: `base`, else
 * `base_2` … `base_9` (each cut to the length a username may have), else the
 * channel's id, which no other handle holds.
 */
export async function chooseGlobalUsername(db: GroupsDb, base: string, channelId: string): Promise<string> {
  const candidates = ["", "_2", "_3", "_4", "_5", "_6", "_7", "_8", "_9"].map(
    (suffix) => base.slice(0, MAX_LENGTH - suffix.length) + suffix,
  );
  const taken = await handlesTaken(
    db,
    candidates.map((candidate) => candidate.toLowerCase()),
  );
  return candidates.find((candidate) => !taken.has(candidate.toLowerCase())) ?? channelId.slice(0, MAX_LENGTH);
}

/** Whether nesting `channel` under `parentId` would put it under itself, among the group's channels. */
export function makesCycle(channels: readonly ChannelRow[], channelId: string, parentId: string): boolean {
  const parents = new Map(channels.map((channel) => [channel.id, channel.parent_id]));
  const seen = new Set<string>();
  for (let at: string | null | undefined = parentId; at; at = parents.get(at)) {
    if (at === channelId || seen.has(at)) return true;
    seen.add(at);
  }
  return false;
}
