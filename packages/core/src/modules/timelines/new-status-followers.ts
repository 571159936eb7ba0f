import type { Kysely } from "kysely";
import { type FollowerReader, localFollowersPage } from "./fan-out-store.js";
import type { Database } from "../../ports/storage-schema.js";

/** Audiences up to this size are written while the status is created; larger ones by a queued job. */
export const INLINE_AUDIENCE = 200;

/** The first local followers of a new status's author, as the reactions to the status read them. */
export interface FirstFollowers {
  /** Up to INLINE_AUDIENCE + 1 local followers, in account id order. */
  readonly followers: readonly FollowerReader[];
  /** Whether these are all the author's local followers (at most INLINE_AUDIENCE of them). */
  readonly complete: boolean;
}

/** How many followers make the first page: one more than INLINE_AUDIENCE, to tell whether there are more. */
export const FIRST_FOLLOWERS_LIMIT = INLINE_AUDIENCE + 1;

const readFor = new WeakMap<object, Promise<FirstFollowers>>();

/**
 * Keeps the first page of followers read with the status's own insert
 * (FIRST_FOLLOWERS_LIMIT of them at most) for the reactions to `status`, so
 * none of them reads it again.
 */
export function rememberFirstLocalFollowers(post: object, followers: readonly FollowerReader[]): void {
  readFor.set(post, Promise.resolve(firstOf(followers)));
}

/**
 * The first page of the author's local followers, read once for all the
 * reactions to one new status: fan-out delivers to them, and the notifications
 * find among them those subscribed to the author (`notify`). Each reaction
 * read them on its own before, two statements of the same index for every
 * status, local or arriving. `status` is the event's description of the status,
 * which every reaction to the event is handed; without one, nothing is shared.
 */
export function firstLocalFollowers(db: Kysely<Database>, authorId: string, post: object | undefined): Promise<FirstFollowers> {
  if (post === undefined) return readFirst(db, authorId);
  let read = readFor.get(post);
  if (read === undefined) {
    read = readFirst(db, authorId);
    readFor.set(post, read);
  }
  return read;
}

async function readFirst(db: Kysely<Database>, authorId: string): Promise<FirstFollowers> {
  return firstOf(await localFollowersPage(db, authorId, null, FIRST_FOLLOWERS_LIMIT));
}

function firstOf(followers: readonly FollowerReader[]): FirstFollowers {
  return { followers, complete: followers.length <= INLINE_AUDIENCE };
}
