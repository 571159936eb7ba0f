import { defineModule } from "../module.js";
import { FeaturedTagService } from "./featured-tag-service.js";
import { FeaturedTagsStore } from "./featured-tags-store.js";
import { featuredTagMigrations } from "./migrations.js";
import { featuredTagRoutes } from "./routes.js";

export type { FeaturedTagEntity, FeaturedTagService } from "./featured-tag-service.js";

/**
 * Mastodon's featured hashtags: the caller's list, featuring and
 * unfeaturing (also from a tag's page), suggestions, the list on a profile,
 * `featuring` on tags, and the actor's `featuredTags` collection for other
 * servers.
 */
export const featuredTagsModule = defineModule({
  name: "featured-tags",
  migrations: featuredTagMigrations,
  services: ({ deps, core }) => {
    const featuredTags = new FeaturedTagService(deps, new FeaturedTagsStore(deps.storage), core.tags);
    core.profileFeatures.bindFeaturedTags(featuredTags);
    return featuredTags;
  },
  routes: featuredTagRoutes,
});
