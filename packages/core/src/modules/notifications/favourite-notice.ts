import type { IdGenerator } from "../../ports/ids.js";
import type { FavouriteNotice } from "../statuses/favourites-store.js";
import { groupKeyFor } from "./notification-groups.js";

/**
 * The notification of a favourite for the liked status's author, made before the favourite is stored so that the
 * favourite's own statement writes it (`addFavourite`); null for a favourite of one's own status, which tells no one.
 */
export function favouriteNotice(
  ids: IdGenerator,
  at: Date,
  likerId: string,
  post: { readonly id: string; readonly account_id: string },
): FavouriteNotice | null {
  if (post.account_id === likerId) return null;
  const id = ids.next("notification");
  return { id, recipientId: post.account_id, groupKey: groupKeyFor(id, "favourite", post.id, at) };
}
