import { defineModule } from "../module.js";
import { MailOutboxView } from "./mail-outbox-view.js";
import { PublicPages } from "./public-pages.js";
import { webRoutes } from "./routes.js";
import type { WebServices } from "./web-services.js";

export type { WebServices } from "./web-services.js";

/**
 * Kith in a browser: server-rendered public pages at the addresses the API
 * and WebFinger hand out (`/`, `/about`, `/@user`, `/@user/{id}`,
 * `/tags/{name}`), their feeds, oEmbed and robots.txt, read as a guest
 * through the same services as the API; and the development mail outbox for
 * administrators. Nothing depends on it: an embedder may leave it out, and
 * those addresses then answer 404 as before.
 */
export const webModule = defineModule({
  name: "web",
  services: ({ deps, core }): WebServices => ({
    pages: new PublicPages(core, deps.storage, deps.config.origin),
    outbox: new MailOutboxView(deps.mail),
  }),
  routes: webRoutes,
});
