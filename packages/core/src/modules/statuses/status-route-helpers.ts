import type { Caller } from "../../domain/caller.js";
import { KithError } from "../../domain/errors.js";
import type { KithServices } from "../core-services.js";
import type { StatusEntity } from "../../mastodon/entities/status.js";
import { idPageLinks } from "../../platform/http/pagination.js";
import { Reply } from "../../platform/http/reply.js";

/** The account reading, or null for a guest or an application token. */
export function viewerOf(caller: Caller): string | null {
  return caller.kind === "user" ? caller.accountId : null;
}

/** The signed-in account acting. */
export function actorOf(caller: Caller): string {
  if (caller.kind !== "user") throw new KithError("auth.unauthenticated");
  return caller.accountId;
}

/** Renders one status for the viewer; 404 when it may not be seen (or is gone). */
export async function renderStatus(services: KithServices, id: string, viewerId: string | null, withSource = false): Promise<StatusEntity> {
  const entity = await services.statusViews.renderOne(id, viewerId, { withSource });
  if (!entity) throw new KithError("status.not_found");
  return entity;
}

/** A list paged by ids other than its items' (favourites, bookmarks, boosts), with its `Link` header. */
export function cursorPagedReply(url: URL, items: readonly unknown[], cursors: readonly string[], limit: number): Reply {
  const link = idPageLinks(url, cursors, limit);
  return Reply.json(items, link ? { headers: { link } } : {});
}
