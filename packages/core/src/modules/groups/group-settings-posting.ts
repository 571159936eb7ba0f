import { KithError } from "../../domain/errors.js";
import { ruleHolds } from "../../domain/permissions.js";
import type { GroupRoles } from "../roles/index.js";
import type { ServiceDeps } from "../service-deps.js";
import { groupSettingsErrors } from "./group-settings-errors.js";
import { MANAGES_GROUP, POSTING_SETTING, STATUS_PRIVACY_SETTING, storedValue } from "./group-settings-registry.js";
import { groupSettingsDb, settingsOf } from "./group-settings-store.js";

/** What a group's settings make of a member's new status. */
export interface PostingRule {
  /** The status goes to the group's members only (`status_privacy` is `members`). */
  readonly membersOnly: boolean;
}

/**
 * The settings that govern posting in a group, read on the posting path:
 * one statement for both settings, and one more for the author's grants in
 * a group where only managers post.
 */
export class GroupPostingRules {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage">,
    private readonly roles: Pick<GroupRoles, "grantsIn">,
  ) {}

  /** Refuses a member the settings do not let post (`group.managers_only_posting`); what they make of the status otherwise. */
  async check(groupId: string, accountId: string): Promise<PostingRule> {
    const stored = await settingsOf(groupSettingsDb(this.deps.storage.db), groupId, [POSTING_SETTING.key, STATUS_PRIVACY_SETTING.key]);
    if (storedValue(POSTING_SETTING, stored.get(POSTING_SETTING.key)).who === "managers") {
      const grants = await this.roles.grantsIn(this.deps.storage.db, groupId, accountId);
      if (!ruleHolds(MANAGES_GROUP, grants, groupId)) throw new KithError(groupSettingsErrors["group.managers_only_posting"]);
    }
    return { membersOnly: storedValue(STATUS_PRIVACY_SETTING, stored.get(STATUS_PRIVACY_SETTING.key)).visibility === "members" };
  }
}
