import { type Expression, type SelectQueryBuilder, sql } from "kysely";
import type { PageRequest } from "../../domain/page.js";
import { literalLimit } from "./literal-limit.js";

/**
 * Fetches one page of an id-ordered list, newest first. `min_id` pages
 * forward from a point (oldest first in SQL, so the page touches that point),
 * then the rows are turned back to newest first. Ids are time-ordered
 * strings, so comparing them compares creation times.
 */
export async function fetchIdPage<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  idColumn: string,
  page: PageRequest,
): Promise<O[]> {
  const rows = await idPageQuery(query, idColumn, page).execute();
  return page.minId !== undefined ? rows.reverse() : rows;
}

/** A page's bounds as a statement takes them: each a value, or a column naming it (one statement reading pages for several). */
export type PageBounds = {
  readonly [K in keyof PageRequest]: PageRequest[K] extends number ? PageRequest[K] : PageRequest[K] | Expression<string>;
};

/** The query of `fetchIdPage`, for a caller that runs it itself; with `minId` its rows come oldest first. */
export function idPageQuery<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  idColumn: string,
  page: PageBounds,
): SelectQueryBuilder<DB, TB, O> {
  const id = sql.ref(idColumn);
  let q = query;
  if (page.maxId !== undefined) q = q.where(sql<boolean>`${id} < ${page.maxId}`);
  if (page.sinceId !== undefined) q = q.where(sql<boolean>`${id} > ${page.sinceId}`);
  if (page.minId !== undefined) {
    q = q.where(sql<boolean>`${id} > ${page.minId}`);
    return q.orderBy(sql`${id}`, "asc").limit(literalLimit(page.limit));
  }
  return q.orderBy(sql`${id}`, "desc").limit(literalLimit(page.limit));
}
