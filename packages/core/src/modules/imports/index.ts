import { defineModule } from "../module.js";
import { ExportService } from "./export-service.js";
import { HostPacer } from "./host-pacer.js";
import { ImportRowEffects } from "./import-row-effects.js";
import { IMPORT_QUEUE, ImportService } from "./import-service.js";
import { ImportsStore } from "./imports-store.js";
import { importMigrations } from "./migrations.js";
import { RelationshipListingsStore } from "./relationship-listings-store.js";
import { type ImportsModuleServices, importRoutes } from "./routes.js";

export type { ImportsModuleServices } from "./routes.js";
export type { ImportService } from "./import-service.js";
export type { ExportService } from "./export-service.js";
export { IMPORT_QUEUE } from "./import-service.js";

/** Rows of one remote host are applied at most this often, so an import does not flood its server. */
const HOST_INTERVAL_MS = 500;

/**
 * The spec's CSV imports (`/api/v1/import`: upload, start, jobs with
 * progress and row errors) of Mastodon's files, worked on the queue, and
 * Mastodon's CSV exports (`/api/v1/exports/*.csv`) written as Mastodon does.
 */
export const importsModule = defineModule({
  name: "imports",
  migrations: importMigrations,
  services: ({ deps, core }): ImportsModuleServices => {
    const listings = new RelationshipListingsStore(() => deps.storage.db);
    const effects = new ImportRowEffects(core, listings, deps.config.origin, () => deps.clock.now().toISOString());
    const pacer = new HostPacer(HOST_INTERVAL_MS, () => Date.now());
    return {
      imports: new ImportService(deps, new ImportsStore(deps.storage), effects, pacer),
      exports: new ExportService(deps, listings),
    };
  },
  routes: importRoutes,
  jobs: ({ imports }) => [
    {
      queue: IMPORT_QUEUE,
      options: { description: "Applies the rows of a started CSV import, a while at a time" },
      handler: (payload, context) => imports.process(payload, context),
    },
  ],
  start: ({ imports }) => imports.recover(),
});
