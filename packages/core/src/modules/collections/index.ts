import { defineModule } from "../module.js";
import { CollectionService } from "./collection-service.js";
import { CollectionsStore } from "./collections-store.js";
import { collectionMigrations } from "./migrations.js";
import { collectionRoutes } from "./routes.js";

export type { CollectionEntity, CollectionItemEntity, CollectionService } from "./collection-service.js";

/**
 * Mastodon's Collections: curated lists of accounts that a user recommends,
 * created, edited and deleted by their owner, accounts added and removed,
 * listed on the owner's profile, and left by an account that was added.
 */
export const collectionsModule = defineModule({
  name: "collections",
  migrations: collectionMigrations,
  services: ({ deps, core }) => new CollectionService(deps, new CollectionsStore(deps.storage), core.tags, core.accountViews),
  routes: collectionRoutes,
});
