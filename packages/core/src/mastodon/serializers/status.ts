import { readFlag } from "../../platform/storage/boolean-columns.js";
import type { PollRow } from "../../ports/storage-schema.js";
import type { MentionEntity, PollEntity, TagEntity } from "../entities/status.js";

/** Where a local status lives: its ActivityPub id and its web page. */
export function localStatusUrls(origin: string, username: string, statusId: string): { uri: string; url: string } {
  return { uri: `${origin}/users/${username}/statuses/${statusId}`, url: `${origin}/@${username}/${statusId}` };
}

/** The ActivityPub id of a local boost: the Announce activity. */
export function localReblogUri(origin: string, username: string, statusId: string): string {
  return `${origin}/users/${username}/statuses/${statusId}/activity`;
}

export function tagUrl(origin: string, name: string): string {
  return `${origin}/tags/${encodeURIComponent(name)}`;
}

export function serializeTag(origin: string, name: string): TagEntity {
  return { name, url: tagUrl(origin, name), history: [] };
}

export function acctOf(username: string, domain: string | null): string {
  return domain === null ? username : `${username}@${domain}`;
}

export function serializeMention(
  origin: string,
  account: { account_id: string; username: string; domain: string | null; url: string | null },
): MentionEntity {
  return {
    id: account.account_id,
    username: account.username,
    acct: acctOf(account.username, account.domain),
    url: account.url ?? `${origin}/@${account.username}`,
  };
}

export function parseJsonArray<T>(text: string | null, fallback: T[] = []): T[] {
  if (text === null) return fallback;
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? (value as T[]) : fallback;
  } catch {
    return fallback;
  }
}

export function pollExpired(poll: Pick<PollRow, "expires_at" | "closed_at">, now: Date): boolean {
  return poll.closed_at !== null || (poll.expires_at !== null && Date.parse(poll.expires_at) <= now.getTime());
}

/**
 * Mastodon's Poll entity. `ownVotes` is null for guests, who get neither
 * `voted` nor `own_votes`. With `hide_totals`, counts stay hidden until the
 * poll ends, except from its author.
 */
export function serializePoll(poll: PollRow, options: { now: Date; viewerId: string | null; ownVotes: number[] | null }): PollEntity {
  const expired = pollExpired(poll, options.now);
  const titles = parseJsonArray<string>(poll.options);
  const tallies = parseJsonArray<number>(poll.cached_tallies);
  const isAuthor = options.viewerId === poll.account_id;
  const hidden = readFlag(poll.hide_totals) && !expired && !isAuthor;
  const entity: PollEntity = {
    id: poll.id,
    expires_at: poll.expires_at,
    expired,
    multiple: readFlag(poll.multiple),
    votes_count: poll.votes_count,
    voters_count: readFlag(poll.multiple) ? poll.voters_count : null,
    options: titles.map((title, index) => ({ title, votes_count: hidden ? null : (tallies[index] ?? 0) })),
    emojis: [],
  };
  if (options.ownVotes !== null) {
    entity.voted = isAuthor || options.ownVotes.length > 0;
    entity.own_votes = options.ownVotes;
  }
  return entity;
}
