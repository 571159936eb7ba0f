import type { ChannelService } from "./channel-service.js";
import type { EntryService } from "./entry-service.js";
import type { GroupAppsService } from "./group-apps-service.js";
import type { GroupPlacement } from "./group-placement.js";
import type { GroupService } from "./group-service.js";
import type { GroupSettingsService } from "./group-settings-service.js";
import type { GroupStreams } from "./group-streams.js";
import type { GroupTimeline } from "./group-timeline.js";
import type { InvitationService } from "./invitation-service.js";
import type { MembershipService } from "./membership-service.js";
import type { GroupActionReportLink } from "./group-action-reports.js";
import type { GroupStatusRemoval } from "./status-removal-service.js";

/** The groups module's services, as its routes get them (`module`). */
export interface GroupsServices {
  readonly groups: GroupService;
  readonly membership: MembershipService;
  /** Moderators removing statuses posted in the group. */
  readonly statusRemoval: GroupStatusRemoval;
  /** Where the reports module resolves the reports a manager's action answers (`report_id`). */
  readonly actionReports: GroupActionReportLink;
  readonly invitations: InvitationService;
  readonly entry: EntryService;
  readonly channels: ChannelService;
  readonly placement: GroupPlacement;
  readonly timeline: GroupTimeline;
  readonly streams: GroupStreams;
  /** The settings registry and each group's values; another module registers its settings on `settings.registry`. */
  readonly settings: GroupSettingsService;
  /** The application catalog, what each group installed, and `apps.require` for an application's routes. */
  readonly apps: GroupAppsService;
}
