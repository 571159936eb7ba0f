export { createSqliteStorage, type SqliteStorageOptions } from "./sqlite-storage.js";
export { backupSqliteDatabase } from "./online-backup.js";
