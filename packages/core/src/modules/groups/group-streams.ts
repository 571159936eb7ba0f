import type { PubSub } from "../../ports/pubsub.js";
import { type StreamMessage, streamChannels } from "../streaming/index.js";
import { visibleChannel } from "./channel-service.js";
import { placeOfStatus } from "./group-statuses-store.js";
import type { GroupsDb } from "./group-tables-store.js";
import type { GroupPlacement } from "./group-placement.js";
import type { GroupViews } from "./group-views.js";

/**
 * The `group` stream (`stream=group&group=<id>`) and the `channel` stream
 * (`stream=channel&channel=<id>`): a new or edited status of a group is
 * published on the group's pubsub channel and on its group channel's, and
 * each connection renders it for its own viewer under the statuses'
 * visibility rule, so a secret group's statuses reach its members only (a
 * member removed while listening hears nothing more). Subscribing needs
 * sight of the group.
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

  /** Whether the viewer may subscribe to a channel's stream: as to its group's. */
  async seesChannel(viewerId: string | null, channelId: string): Promise<boolean> {
    try {
      await visibleChannel(this.db(), this.views, channelId, viewerId);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Publishes a new status on its group's streams, if it was posted in a group: the placement that put it there
   * says so, in the process that posted it, so a status in no group reads nothing.
   */
  async publishNew(statusId: string): Promise<void> {
    const place = this.placement.placedIn(statusId);
    if (place !== undefined) await this.#send(place.groupId, place.channelId, { event: "update", statusId });
  }

  /** Publishes an edited status on its group's streams, if it was posted in a group. */
  async publishEdit(statusId: string): Promise<void> {
    const place = await placeOfStatus(this.db(), statusId);
    if (place !== null) await this.#send(place.group_id, place.channel_id, { event: "status.update", statusId });
  }

  async #send(groupId: string, channelId: string | null, message: StreamMessage): Promise<void> {
    await this.pubsub.publish(streamChannels.group(groupId), message);
    if (channelId !== null) await this.pubsub.publish(streamChannels.channel(channelId), message);
  }
}
