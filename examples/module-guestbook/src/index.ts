import { defineModule } from "@kith/core";
import { type GuestbookOptions, GuestbookService } from "./guestbook-service.js";
import { GuestbookStore } from "./guestbook-store.js";
import { guestbookMigrations } from "./migrations.js";
import { guestbookRoutes } from "./routes.js";

export type { GuestbookEntryEntity, GuestbookOptions, GuestbookService } from "./guestbook-service.js";

const DAY_MS = 24 * 60 * 60 * 1000;
/** The queue of the daily job that prunes old entries. */
export const GUESTBOOK_PRUNE_QUEUE = "guestbook-prune";

/**
 * A guestbook on every local profile: a feature module with its own table,
 * routes, error codes, id kind, a repeating job and a reaction to a domain
 * event. Add it with `createKith({ modules: [...defaultModules, guestbookModule()] })`.
 */
export function guestbookModule(options: GuestbookOptions = {}) {
  return defineModule({
    name: "guestbook",
    migrations: guestbookMigrations,
    services: ({ deps, core }) => new GuestbookService(deps, core, new GuestbookStore(deps.storage), options),
    routes: guestbookRoutes,
    jobs: (guestbook) => [
      {
        queue: GUESTBOOK_PRUNE_QUEUE,
        everyMs: DAY_MS,
        handler: async () => {
          await guestbook.prune();
        },
      },
    ],
    events: (guestbook, events) => {
      events.on("block.created", async (event) => {
        await guestbook.forgetBlocked(event.accountId, event.targetAccountId);
      });
    },
  });
}
