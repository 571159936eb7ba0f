export { createSqliteStorage, type SqliteStorageOptions } from "./sqlite-storage.js";
export { backupSqliteDatabase } from "./online-backup.js";
export { MIN_NODE_MAJOR } from "./supported-node.js";
