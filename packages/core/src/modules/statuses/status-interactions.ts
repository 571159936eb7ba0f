import { KithError } from "../../domain/errors.js";
import { addFavourite, removeFavourite } from "./favourites-store.js";
import { ancestorIds } from "./statuses-store.js";
import type { StatusRow } from "../../ports/storage-schema.js";
import type { BatchedWrites } from "../../platform/storage/batched-writes.js";
import type { ServiceDeps } from "../service-deps.js";
import type { DomainEvents } from "../../platform/events/domain-events.js";
import { favouriteNotice } from "../notifications/favourite-notice.js";
import type { SettingsService } from "../settings/settings-service.js";
import type { StatusService } from "./status-service.js";

/** How far up a thread the root of a reply is looked for. */
export const MAX_THREAD_DEPTH = 1024;

/**
 * What a reader does to a status: favourite, bookmark, mute its conversation,
 * pin (own statuses), subscribe to its replies, and highlight a reply under
 * the root status (the root's author only). Each is idempotent: doing it twice
 * leaves one row, undoing what was not done is fine.
 */
export class StatusInteractions {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "clock" | "ids">,
    private readonly events: DomainEvents,
    private readonly statuses: StatusService,
    private readonly settings: SettingsService,
    /** Favourites are committed with the other writes of the same moment. */
    private readonly writes: Pick<BatchedWrites, "transaction">,
  ) {}

  /** A boost stands for the boosted post in every action, as Mastodon does. */
  async #target(statusId: string, accountId: string): Promise<StatusRow> {
    const row = await this.statuses.findVisible(statusId, accountId);
    return row.reblog_of_id ? this.statuses.findVisible(row.reblog_of_id, accountId) : row;
  }

  async favourite(accountId: string, statusId: string): Promise<string> {
    const target = await this.#target(statusId, accountId);
    const at = this.deps.clock.now();
    const favourite = { id: this.deps.ids.next("favourite"), accountId, statusId: target.id, uri: null };
    const notice = favouriteNotice(this.deps.ids, at, accountId, target);
    const added = await this.writes.transaction((trx) => addFavourite(trx, favourite, at.toISOString(), notice));
    if (added)
      await this.events.emit({
        type: "favourite.created",
        accountId,
        statusId: target.id,
        statusAccountId: target.account_id,
        notificationId: added.notificationId,
      });
    return target.id;
  }

  async unfavourite(accountId: string, statusId: string): Promise<string> {
    const target = await this.#target(statusId, accountId);
    const removed = await this.writes.transaction((trx) => removeFavourite(trx, accountId, { statusId: target.id }));
    if (removed) await this.events.emit({ type: "favourite.removed", accountId, statusId: target.id });
    return target.id;
  }

  async bookmark(accountId: string, statusId: string): Promise<string> {
    const target = await this.#target(statusId, accountId);
    await this.deps.storage.db
      .insertInto("bookmarks")
      .values({
        id: this.deps.ids.next("bookmark"),
        account_id: accountId,
        status_id: target.id,
        created_at: this.deps.clock.now().toISOString(),
      })
      .onConflict((oc) => oc.columns(["account_id", "status_id"]).doNothing())
      .execute();
    return target.id;
  }

  async unbookmark(accountId: string, statusId: string): Promise<string> {
    const target = await this.#target(statusId, accountId);
    await this.deps.storage.db.deleteFrom("bookmarks").where("account_id", "=", accountId).where("status_id", "=", target.id).execute();
    return target.id;
  }

  /** Mutes the status's conversation: no more notifications from it. */
  async muteConversation(accountId: string, statusId: string): Promise<string> {
    const target = await this.#target(statusId, accountId);
    if (!target.conversation_id) throw new KithError("status.not_in_conversation");
    await this.deps.storage.db
      .insertInto("conversation_mutes")
      .values({ account_id: accountId, conversation_id: target.conversation_id, created_at: this.deps.clock.now().toISOString() })
      .onConflict((oc) => oc.columns(["account_id", "conversation_id"]).doNothing())
      .execute();
    return target.id;
  }

  async unmuteConversation(accountId: string, statusId: string): Promise<string> {
    const target = await this.#target(statusId, accountId);
    if (!target.conversation_id) throw new KithError("status.not_in_conversation");
    await this.deps.storage.db
      .deleteFrom("conversation_mutes")
      .where("account_id", "=", accountId)
      .where("conversation_id", "=", target.conversation_id)
      .execute();
    return target.id;
  }

  /** Pins one of the caller's own top-level, non-direct statuses to their profile, up to the server's limit (422 beyond). */
  async pin(accountId: string, statusId: string): Promise<string> {
    const row = await this.statuses.findVisible(statusId, accountId);
    if (row.account_id !== accountId) throw new KithError("status.pin_invalid", { message: "You can only pin your own posts" });
    if (row.reblog_of_id !== null) throw new KithError("status.pin_invalid", { message: "Boosts cannot be pinned" });
    if (row.visibility === "direct") throw new KithError("status.pin_invalid", { message: "Direct posts cannot be pinned" });
    if (row.in_reply_to_id !== null) throw new KithError("status.pin_invalid", { message: "Only top-level posts can be pinned" });
    const limit = await this.settings.get("maxPinnedPosts");
    const added = await this.deps.storage.transaction(async (trx) => {
      const already = await trx
        .selectFrom("status_pins")
        .select("id")
        .where("account_id", "=", accountId)
        .where("status_id", "=", row.id)
        .executeTakeFirst();
      if (already) return false;
      const count = await trx
        .selectFrom("status_pins")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("account_id", "=", accountId)
        .executeTakeFirstOrThrow();
      if (Number(count.n) >= limit) throw new KithError("status.pin_limit");
      await trx
        .insertInto("status_pins")
        .values({
          id: this.deps.ids.next("pin"),
          account_id: accountId,
          status_id: row.id,
          created_at: this.deps.clock.now().toISOString(),
        })
        .execute();
      return true;
    });
    if (added) await this.events.emit({ type: "pin.added", accountId, statusId: row.id });
    return row.id;
  }

  async unpin(accountId: string, statusId: string): Promise<string> {
    const row = await this.statuses.findVisible(statusId, accountId);
    const result = await this.deps.storage.db
      .deleteFrom("status_pins")
      .where("account_id", "=", accountId)
      .where("status_id", "=", row.id)
      .executeTakeFirst();
    if (Number(result.numDeletedRows) > 0) await this.events.emit({ type: "pin.removed", accountId, statusId: row.id });
    return row.id;
  }

  /** Subscribes the caller to new replies of a status (notified by the notifications part). */
  async subscribe(accountId: string, statusId: string): Promise<string> {
    const target = await this.#target(statusId, accountId);
    await this.deps.storage.db
      .insertInto("status_subscriptions")
      .values({
        id: this.deps.ids.next("subscription"),
        account_id: accountId,
        status_id: target.id,
        created_at: this.deps.clock.now().toISOString(),
      })
      .onConflict((oc) => oc.columns(["account_id", "status_id"]).doNothing())
      .execute();
    return target.id;
  }

  async unsubscribe(accountId: string, statusId: string): Promise<string> {
    const target = await this.#target(statusId, accountId);
    await this.deps.storage.db
      .deleteFrom("status_subscriptions")
      .where("account_id", "=", accountId)
      .where("status_id", "=", target.id)
      .execute();
    return target.id;
  }

  /** The first status of the thread a reply belongs to. */
  async rootOf(statusId: string): Promise<string> {
    const ancestors = await ancestorIds(this.deps.storage.db, statusId, MAX_THREAD_DEPTH);
    return ancestors[ancestors.length - 1] ?? statusId;
  }

  /** Highlights a reply under its thread's first status; only that status's author may. */
  async highlight(accountId: string, statusId: string): Promise<string> {
    const reply = await this.statuses.findVisible(statusId, accountId);
    if (reply.reblog_of_id !== null || reply.in_reply_to_id === null) throw new KithError("status.highlight_invalid");
    const rootId = await this.rootOf(reply.id);
    const root = await this.deps.storage.db.selectFrom("statuses").select(["id", "account_id"]).where("id", "=", rootId).executeTakeFirst();
    if (!root || root.id === reply.id) throw new KithError("status.highlight_invalid");
    if (root.account_id !== accountId) {
      throw new KithError("status.forbidden", { message: "Only the author of the thread's first post can highlight replies" });
    }
    await this.deps.storage.db
      .insertInto("status_highlights")
      .values({
        id: this.deps.ids.next("highlight"),
        root_status_id: root.id,
        status_id: reply.id,
        account_id: accountId,
        created_at: this.deps.clock.now().toISOString(),
      })
      .onConflict((oc) => oc.column("status_id").doNothing())
      .execute();
    return reply.id;
  }

  async unhighlight(accountId: string, statusId: string): Promise<string> {
    const reply = await this.statuses.findVisible(statusId, accountId);
    const highlight = await this.deps.storage.db
      .selectFrom("status_highlights")
      .select(["id", "account_id"])
      .where("status_id", "=", reply.id)
      .executeTakeFirst();
    if (highlight && highlight.account_id !== accountId) {
      throw new KithError("status.forbidden", { message: "Only the author of the thread's first post can highlight replies" });
    }
    if (highlight) await this.deps.storage.db.deleteFrom("status_highlights").where("id", "=", highlight.id).execute();
    return reply.id;
  }
}
