import { localStatusUrls } from "../../mastodon/serializers/status.js";
import type { ListedBookmark } from "./relationship-listings-store.js";

/** The ActivityPub id of a bookmarked status: derived for a local one, stored for a remote one. */
export function bookmarkUri(origin: string, bookmark: ListedBookmark): string {
  return bookmark.local || bookmark.uri === null ? localStatusUrls(origin, bookmark.authorUsername, bookmark.statusId).uri : bookmark.uri;
}
