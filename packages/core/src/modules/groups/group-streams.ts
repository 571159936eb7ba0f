import type { PubSub } from "../../ports/pubsub.js";
import { type StreamMessage, streamChannels } from "../streaming/index.js";
import { groupOfStatus } from "./group-statuses-store.js";
import type { GroupsDb } from "./group-tables-store.js";
import type { GroupPlacement } from "./group-placement.js";
import type { GroupViews } from "./group-views.js";

/**
 * The `group` stream (`stream=group&group=<id>`): a new or edited status of
 * a group is published on the group's channel, and each connection renders
 * it for its own viewer under the statuses' visibility rule, so a secret
 * group's statuses reach its members only (a member removed while
 * listening hears nothing more). Subscribing needs sight of the group.
 */
export class GroupStreams {
  constructor(
    private readonly db: () => GroupsDb,
    private readonly pubsub: PubSub,
    private readonly views: GroupViews,
    private readonly placement: Pick<GroupPlacement, "placedIn">,
  ) {}

  /** Whether the viewer may subscribe to the group's stream: a secret group is as absent to non-members. */
  async sees(viewerId: string | null, groupId: string): Promise<boolean> {
    try {
      await this.views.visible(groupId, viewerId);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Publishes a new status on its group's stream, if it was posted in a group: the placement that put it there
   * says so, in the process that posted it, so a status in no group reads nothing.
   */
  async publishNew(statusId: string): Promise<void> {
    const groupId = this.placement.placedIn(statusId);
    if (groupId !== undefined) await this.#send(groupId, { event: "update", statusId });
  }

  /** Publishes an edited status on its group's stream, if it was posted in a group. */
  async publishEdit(statusId: string): Promise<void> {
    const groupId = await groupOfStatus(this.db(), statusId);
    if (groupId !== null) await this.#send(groupId, { event: "status.update", statusId });
  }

  #send(groupId: string, message: StreamMessage): Promise<void> {
    return this.pubsub.publish(streamChannels.group(groupId), message);
  }
}
