import { type RawBuilder, sql } from "kysely";

/**
 * A statement's row limit written into its text instead of bound as a value. PostgreSQL runs a prepared statement
 * with a generic plan once that plan costs no more than the plans made for each run's values; with a limit it cannot
 * see, it reckons a page of 40 reads a tenth of the rows, so the generic plan looks dearer and every run is planned
 * anew, its planning costing several times its run (bench/READING.md, "Measurements behind the code"). A limit is a small integer that is
 * part of a statement's shape anyway (compiled-once.ts), so the text changes with it rarely.
 */
export function literalLimit(limit: number): RawBuilder<number> {
  if (!Number.isSafeInteger(limit) || limit < 0) throw new RangeError(`Not a row limit: ${limit}`);
  return sql.lit(limit);
}
