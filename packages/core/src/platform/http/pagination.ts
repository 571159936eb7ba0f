import { z } from "zod";
import type { PageRequest } from "../../domain/page.js";
import { Reply } from "./reply.js";
import { zInt } from "./schemas.js";

/**
 * Mastodon-style pagination: `limit`, `max_id`, `min_id`, `since_id` on
 * id-ordered lists, or an opaque `cursor` where the order is not by id; the
 * neighbouring pages go in the `Link` header, which clients follow verbatim.
 */
export const idPageQuery = z.object({
  limit: zInt.optional(),
  max_id: z.string().max(64).optional(),
  min_id: z.string().max(64).optional(),
  since_id: z.string().max(64).optional(),
});

export const cursorPageQuery = z.object({
  limit: zInt.optional(),
  cursor: z.string().max(512).optional(),
});

export interface PageSize {
  readonly defaultLimit: number;
  readonly maxLimit: number;
}

/** Page sizes of DESIGN.md: 20 by default, at most 40 for statuses, 80 for accounts. */
export const POSTS_PAGE: PageSize = { defaultLimit: 20, maxLimit: 40 };
export const ACCOUNTS_PAGE: PageSize = { defaultLimit: 20, maxLimit: 80 };
export const DEFAULT_PAGE: PageSize = { defaultLimit: 20, maxLimit: 80 };

/** A limit outside the range is clamped, as Mastodon does, rather than refused. */
export function clampLimit(limit: number | undefined, size: PageSize): number {
  if (limit === undefined || !Number.isFinite(limit)) return size.defaultLimit;
  return Math.min(size.maxLimit, Math.max(1, Math.trunc(limit)));
}

export function pageRequest(query: z.infer<typeof idPageQuery>, size: PageSize = DEFAULT_PAGE): PageRequest {
  return {
    limit: clampLimit(query.limit, size),
    ...(query.max_id && { maxId: query.max_id }),
    ...(query.min_id && { minId: query.min_id }),
    ...(query.since_id && { sinceId: query.since_id }),
  };
}

/** The request's URL without its query, and its query without the paging parameters; each link adds its own. */
interface LinkBase {
  readonly prefix: string;
  readonly params: URLSearchParams;
}

function linkBase(base: URL): LinkBase {
  const params = new URLSearchParams(base.search);
  // A token given in the query (streaming clients do) must not be copied into headers that proxies log and clients store.
  for (const key of ["max_id", "min_id", "since_id", "cursor", "access_token"]) params.delete(key);
  return { prefix: base.href.slice(0, base.href.length - base.search.length - base.hash.length), params };
}

/** The same text as setting the changes on a copy of the URL's searchParams, without parsing the URL again for each link. */
function pageUrl(base: LinkBase, changes: Record<string, string>): string {
  const params = new URLSearchParams(base.params);
  for (const [key, value] of Object.entries(changes)) params.set(key, value);
  const query = params.toString();
  return query === "" ? base.prefix : `${base.prefix}?${query}`;
}

/** The `Link` header of an id-ordered page (items newest first), or null for an empty page. */
export function idPageLinks(base: URL, ids: readonly string[], limit: number): string | null {
  if (ids.length === 0) return null;
  const links: string[] = [];
  const stripped = linkBase(base);
  // As Mastodon does: a next page is offered only when this one is full.
  if (ids.length >= limit) links.push(`<${pageUrl(stripped, { max_id: ids[ids.length - 1] ?? "", limit: String(limit) })}>; rel="next"`);
  links.push(`<${pageUrl(stripped, { min_id: ids[0] ?? "", limit: String(limit) })}>; rel="prev"`);
  return links.join(", ");
}

/** The `Link` header of a cursor-ordered page. */
export function cursorPageLinks(base: URL, cursors: { next: string | null; prev: string | null }, limit: number): string | null {
  const links: string[] = [];
  const stripped = linkBase(base);
  if (cursors.next) links.push(`<${pageUrl(stripped, { cursor: cursors.next, limit: String(limit) })}>; rel="next"`);
  if (cursors.prev) links.push(`<${pageUrl(stripped, { cursor: cursors.prev, limit: String(limit) })}>; rel="prev"`);
  return links.length ? links.join(", ") : null;
}

/** A JSON list with its `Link` header. */
export function pagedReply<T extends { id: string }>(base: URL, items: readonly T[], limit: number, body: unknown = items): Reply {
  const link = idPageLinks(
    base,
    items.map((item) => item.id),
    limit,
  );
  return Reply.json(body, link ? { headers: { link } } : {});
}

export type { PageRequest };
