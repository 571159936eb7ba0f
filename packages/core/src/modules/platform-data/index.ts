import { groupsModule } from "../groups/index.js";
import { defineModule } from "../module.js";
import { DATA_APP, DataService } from "./data-service.js";
import { platformDataMigrations } from "./migrations.js";
import { dataRoutes } from "./routes.js";

export type { DataService, DataEntryEntity, DataCaller, DataFilter, NewDataEntry, DataEntryChanges } from "./data-service.js";
export { MAX_CONTENT_BYTES, MAX_TAGS } from "./data-content.js";
export { PLATFORM_OWNER } from "./data-owners.js";

/**
 * Platform data (the spec's "Platform data entry" and its four endpoints):
 * JSON entries that a user, a group or the platform owns, with an optional
 * type and tags, for embedders and group applications to keep their own
 * data in Kith. A group's entries are its `data` application: served while
 * the group has it installed.
 */
export const platformDataModule = defineModule({
  name: "platform-data",
  requires: [groupsModule],
  migrations: platformDataMigrations,
  groupApps: [
    {
      id: DATA_APP,
      name: "Platform data",
      description: "Entries of JSON data the group owns, typed and tagged, for other applications to build on",
    },
  ],
  services: ({ deps, core, use }) => new DataService(deps, core, use(groupsModule).apps),
  routes: dataRoutes,
  events: (data, events) => {
    // An owner that goes takes its entries with it: an account (awaited before its rows go), a group.
    events.on("account.deleting", async (event) => {
      await data.forgetOwner(event.accountId);
    });
    events.on("group.deleted", async (event) => {
      await data.forgetOwner(event.groupId);
    });
  },
});
