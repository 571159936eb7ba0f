import { defineModule } from "../module.js";
import { EndorsementService } from "./endorsement-service.js";
import { EndorsementsStore } from "./endorsements-store.js";
import { endorsementMigrations } from "./migrations.js";
import { endorsementRoutes } from "./routes.js";

export type { EndorsementService } from "./endorsement-service.js";

/**
 * Mastodon's endorsements (featured accounts): `endorse` and `unendorse` (and
 * their older names `pin` and `unpin`), the caller's list, the list on a
 * profile, `endorsed` in relationships, and the actor's endorsements
 * collection for other servers.
 */
export const endorsementsModule = defineModule({
  name: "endorsements",
  migrations: endorsementMigrations,
  services: ({ deps, core }) => {
    const endorsements = new EndorsementService(deps, new EndorsementsStore(deps.storage));
    core.profileFeatures.bindEndorsements(endorsements);
    return endorsements;
  },
  routes: endorsementRoutes,
  events: (endorsements, events) => {
    events.on("follow.removed", (event) => endorsements.followEnded(event.accountId, event.targetAccountId));
  },
});
