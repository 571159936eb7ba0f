import BetterSqlite3 from "better-sqlite3";
import { assertSupportedNode } from "./supported-node.js";

/**
 * Copies an SQLite database file to `destination` with SQLite's online backup API, while other connections (the
 * running server) go on reading and writing it: the copy is the database as it was at one commit, never a torn
 * file as a plain copy of a database in WAL mode can be. Resolves to the pages copied.
 */
export async function backupSqliteDatabase(source: string, destination: string): Promise<number> {
  assertSupportedNode();
  const connection = new BetterSqlite3(source, { readonly: true, fileMustExist: true });
  try {
    const { totalPages } = await connection.backup(destination);
    return totalPages;
  } finally {
    connection.close();
  }
}
