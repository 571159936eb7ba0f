import { Collection } from "@fedify/fedify/vocab";

/** Where the activity of a local status is served: its Create, or the Announce when the status is a boost. */
export const STATUS_ACTIVITY_PATH = "/users/{identifier}/statuses/{id}/activity";

/** Where the replies to a local status are listed. */
export const STATUS_REPLIES_PATH = "/users/{identifier}/statuses/{id}/replies";

/** Fedify's name of the replies collection (a custom collection is registered and looked up by name). */
export const STATUS_REPLIES = "status-replies";

/**
 * The `replies` of a status's object: the collection's id and its first page
 * by URL (the page Fedify serves for the first cursor, ""), not the replies
 * themselves, so the object stays the same as replies come: servers that
 * read replies fetch the page.
 */
export function repliesCollectionOf(statusUri: string): Collection {
  const id = `${statusUri}/replies`;
  return new Collection({ id: new URL(id), first: new URL(`${id}?cursor=`) });
}
