export { createSqliteStorage, type SqliteStorageOptions } from "./sqlite-storage.js";
