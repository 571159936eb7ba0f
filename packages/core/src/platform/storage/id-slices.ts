/**
 * How many ids of a list one statement binds at most. A list of recipients
 * has no upper bound (every subscriber of a popular account), while SQLite
 * takes at most 32 766 parameters a statement and PostgreSQL 65 535, and a
 * statement may name its list more than once; slices also keep the shapes a
 * compiled-once statement keeps (one per list length) to a few hundred.
 */
export const IDS_PER_STATEMENT = 500;

/** `read` of the whole list, run on slices of at most IDS_PER_STATEMENT ids one after another; the rows in order. */
export async function readInSlices<T>(ids: readonly string[], read: (slice: readonly string[]) => Promise<T[]>): Promise<T[]> {
  if (ids.length <= IDS_PER_STATEMENT) return read(ids);
  const rows: T[] = [];
  for (let at = 0; at < ids.length; at += IDS_PER_STATEMENT) rows.push(...(await read(ids.slice(at, at + IDS_PER_STATEMENT))));
  return rows;
}
