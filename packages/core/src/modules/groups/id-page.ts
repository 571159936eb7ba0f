import type { PageRequest } from "../../domain/page.js";

import type { IdBounds } from "./group-tables-store.js";

export type { IdBounds };

/**
 * Reads one page newest first, as Mastodon pages: `max_id` below, `since_id`
 * the newest above, `min_id` the oldest above (read upwards, then turned).
 */
export async function readIdPage<Row>(page: PageRequest, read: (bounds: IdBounds) => Promise<Row[]>): Promise<Row[]> {
  if (page.minId !== undefined) {
    const rows = await read({ above: page.minId, ...(page.maxId !== undefined && { below: page.maxId }), ascending: true, limit: page.limit });
    return rows.reverse();
  }
  const above = page.sinceId;
  return read({
    ...(above !== undefined && { above }),
    ...(page.maxId !== undefined && { below: page.maxId }),
    ascending: false,
    limit: page.limit,
  });
}
