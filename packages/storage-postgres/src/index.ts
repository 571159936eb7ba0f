export { createPostgresStorage, type PostgresStorageOptions } from "./postgres-storage.js";
export { postgresTypes } from "./type-parsers.js";
export { createPostgresDatabase, dropPostgresDatabase } from "./admin.js";
