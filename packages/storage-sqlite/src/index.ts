export { createSqliteStorage, type SqliteStorageOptions } from "./sqlite-storage.js";
export { sqliteMigrations } from "./migrations/index.js";
