import type { DbBool } from "../../ports/storage-schema.js";

/**
 * Boolean columns declared `Generated<DbBool>` nest one column type in
 * another, which Kysely reads back as the column type itself: these two
 * helpers read and write such columns with the engines' real values.
 */
export function readFlag(value: unknown): boolean {
  return value === true || value === 1;
}

export function writeFlag(value: boolean): DbBool {
  return value as unknown as DbBool;
}
