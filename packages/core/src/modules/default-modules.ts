import type { AnyRoute } from "../platform/http/route.js";
import { serverRoutes } from "./core-routes.js";
import { routesOfModules } from "./composed-modules.js";
import type { KithModule } from "./module.js";
import { auditModule } from "./audit/index.js";
import { collectionsModule } from "./collections/index.js";
import { customEmojisModule } from "./custom-emojis/index.js";
import { directoryModule } from "./directory/index.js";
import { endorsementsModule } from "./endorsements/index.js";
import { eventsModule } from "./events/index.js";
import { featuredTagsModule } from "./featured-tags/index.js";
import { groupsModule } from "./groups/index.js";
import { importsModule } from "./imports/index.js";
import { preferencesModule } from "./preferences/index.js";
import { pushModule } from "./push/index.js";
import { previewCardsModule } from "./preview-cards/index.js";
import { platformDataModule } from "./platform-data/index.js";
import { relaysModule } from "./relays/index.js";
import { reportsModule } from "./reports/index.js";
import { scheduledStatusesModule } from "./scheduled-statuses/index.js";
import { signUpBlocksModule } from "./sign-up-blocks/index.js";
import { adminMetricsModule } from "./admin-metrics/index.js";
import { annualReportsModule } from "./annual-reports/index.js";
import { suggestionsModule } from "./suggestions/index.js";
import { translationsModule } from "./translations/index.js";
import { trendsModule } from "./trends/index.js";
import { webModule } from "./web/index.js";

/**
 * The feature modules a server has unless told otherwise, in the order they
 * are composed. An embedder passes its own list to `createKith` to leave
 * optional ones out or add its own after them.
 */
export const defaultModules: readonly KithModule<string, unknown>[] = [
  preferencesModule,
  customEmojisModule,
  previewCardsModule,
  trendsModule,
  suggestionsModule,
  relaysModule,
  groupsModule,
  reportsModule,
  auditModule,
  scheduledStatusesModule,
  translationsModule,
  endorsementsModule,
  featuredTagsModule,
  directoryModule,
  collectionsModule,
  signUpBlocksModule,
  adminMetricsModule,
  annualReportsModule,
  pushModule,
  eventsModule,
  platformDataModule,
  webModule,
  importsModule,
];

/**
 * Every endpoint of a server with the default modules, as data: what the
 * reference and the route-walking tests read. An instance serves its own
 * table (`kith.routes`), bound to its modules.
 */
export const routeTable: readonly AnyRoute[] = serverRoutes(routesOfModules(defaultModules));
