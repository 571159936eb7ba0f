import { defineModule } from "../module.js";
import { BlocksStore } from "./blocks-store.js";
import { signUpBlockMigrations } from "./migrations.js";
import { signUpBlockRoutes } from "./routes.js";
import { SignUpBlockService } from "./sign-up-blocks-service.js";

export type { SignUpBlockService } from "./sign-up-blocks-service.js";

/**
 * Mastodon's blocks on sign-ups (`/api/v1/admin/canonical_email_blocks`,
 * `email_domain_blocks`, `ip_blocks`), which registration and sign-in obey
 * through the core's access blocks.
 */
export const signUpBlocksModule = defineModule({
  name: "sign-up-blocks",
  migrations: signUpBlockMigrations,
  services: ({ deps, core }) => {
    const blocks = new SignUpBlockService(deps, new BlocksStore(deps.storage));
    core.accessBlocks.bind(blocks);
    return blocks;
  },
  routes: signUpBlockRoutes,
});
