import { GroupRoles } from "../roles/index.js";
import { defineModule } from "../module.js";
import { Admission } from "./admission.js";
import { PrimaryChannels } from "./channel-primary.js";
import { ChannelService } from "./channel-service.js";
import { EntryService } from "./entry-service.js";
import { GroupAccountService } from "./group-account-service.js";
import { GroupNotices } from "./group-notices.js";
import { GroupAppCatalog } from "./group-apps-catalog.js";
import { GroupAppsService } from "./group-apps-service.js";
import { GroupPlacement } from "./group-placement.js";
import { GroupService } from "./group-service.js";
import { GroupPostingRules } from "./group-settings-posting.js";
import { groupSettingsRegistry } from "./group-settings-registry.js";
import { GroupSettingsService } from "./group-settings-service.js";
import { GroupStreams } from "./group-streams.js";
import { GroupTimeline } from "./group-timeline.js";
import { groupsDb } from "./group-tables-store.js";
import { GroupViews } from "./group-views.js";
import type { GroupsServices } from "./groups-services.js";
import { InvitationService } from "./invitation-service.js";
import { MembershipService } from "./membership-service.js";
import { GroupActionReportLink } from "./group-action-reports.js";
import { GroupStatusRemoval } from "./status-removal-service.js";
import { groupMigrations } from "./migrations.js";
import { groupsModuleRoutes } from "./routes.js";

export type { GroupsServices } from "./groups-services.js";
export type { GroupEntity } from "./group-entities.js";
export {
  GroupSettingsRegistry,
  type GroupSettingDefinition,
  type SettingReaders,
  type SettingValue,
} from "./group-settings-registry.js";
export type { GroupSettingsService, GroupSettingsEntity } from "./group-settings-service.js";
export type { GroupAppsService, GroupAppEntity, GroupInstalledAppEntity } from "./group-apps-service.js";
export { GROUP_NOTIFICATION_TYPES } from "./group-notices.js";

/** The group application of channels: installed by default, its routes answer 404 in a group that uninstalled it. */
const CHANNELS_APP = "channels";
const HOUR_MS = 60 * 60 * 1000;
/** The queue of the hourly job that forgets expired join tokens. */
export const GROUP_JOIN_TOKENS_PRUNE_QUEUE = "groups.prune-join-tokens";

/**
 * Groups (the spec's "Group-related resources"): groups with their join
 * modes, entry questions, join requests, invitations, members, bans and
 * rules, secret or not, and channels; their roles are RBAC roles in the
 * group's scope, made with the group, so that a group is run with its own
 * grants.
 */
export const groupsModule = defineModule({
  name: "groups",
  migrations: groupMigrations,
  // Channels are the groups module's own application.
  groupApps: [
    {
      id: CHANNELS_APP,
      name: "Channels",
      description: "Channels inside the group, each a specialized account with its own followers and statuses",
      defaultInstalled: true,
    },
  ],
  services: ({ deps, core, modules }): GroupsServices => {
    const roles = new GroupRoles(deps);
    const views = new GroupViews(() => groupsDb(deps.storage.db), roles, core.accountViews);
    const notices = new GroupNotices(deps, core, roles, views);
    core.notificationViews.extend(notices);
    const admission = new Admission(deps, roles, core.statuses.audiences);
    core.roles.guardGroupAssignments((db, groupId, actorId) => admission.assertMember(db, groupId, actorId));
    const entry = new EntryService(deps, views);
    const primaries = new PrimaryChannels(deps);
    const apps = new GroupAppsService(deps, views, new GroupAppCatalog(modules));
    const channels = new ChannelService(deps, views, primaries, (groupId) => apps.require(groupId, CHANNELS_APP));
    const placement = new GroupPlacement(deps, views, new GroupPostingRules(deps, roles), primaries);
    core.statuses.placeStatusesWith(placement);
    const streams = new GroupStreams(() => groupsDb(deps.storage.db), deps.pubsub, views, placement);
    core.streaming.allowGroupStreams((viewerId, groupId) => streams.sees(viewerId, groupId));
    core.streaming.allowChannelStreams((viewerId, channelId) => streams.seesChannel(viewerId, channelId));
    const timeline = new GroupTimeline(deps, views, core.statusViews);
    const actionReports = new GroupActionReportLink();
    const membership = new MembershipService(deps, core, roles, views, admission, entry, notices, actionReports);

    core.groupAccounts.use(new GroupAccountService(deps, membership, timeline, channels));
    return {
      placement,
      timeline,
      streams,
      groups: new GroupService(deps, core, roles, views, primaries),
      membership,
      actionReports,
      statusRemoval: new GroupStatusRemoval(deps, core, roles, views, actionReports),
      invitations: new InvitationService(deps, core, views, admission, notices),
      entry,
      settings: new GroupSettingsService(deps, views, groupSettingsRegistry()),
      apps,
      channels,
    };
  },
  routes: groupsModuleRoutes,
  events: (groups, events) => {
    // Awaited before the account's rows go: its memberships end first, so that no group keeps counting it.
    events.on("account.deleting", (event) => groups.membership.forgetAccount(event.accountId));
    events.on("status.deleted", (event) => groups.placement.forgetStatus(event.statusId));
    events.on("status.created", (event) => groups.streams.publishNew(event.statusId));
    events.on("status.updated", (event) => groups.streams.publishEdit(event.statusId));
  },
  jobs: (groups) => [
    {
      queue: GROUP_JOIN_TOKENS_PRUNE_QUEUE,
      everyMs: HOUR_MS,
      options: { description: "Forgets expired group join tokens" },
      handler: async () => {
        await groups.entry.pruneTokens();
      },
    },
  ],
});
