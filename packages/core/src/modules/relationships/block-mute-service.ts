import { KithError } from "../../domain/errors.js";
import { deletePair, existingAccountIds, insertBlock, removeFollow, upsertMute } from "./relationships-store.js";
import { deleteFollowNotifications } from "../notifications/notifications-store.js";
import type { ServiceDeps } from "../service-deps.js";
import type { DomainEvent, DomainEvents } from "../../platform/events/domain-events.js";

export interface MuteOptions {
  /** Whether the muted account's notifications are hidden too. @default true */
  readonly notifications?: boolean;
  /** Seconds until the mute ends; 0 or absent for ever. */
  readonly durationSeconds?: number;
}

/**
 * Blocks and mutes. A block ends follows and pending requests both ways in
 * the same transaction; a mute only hides, and may end by itself (an expired
 * mute is ignored wherever mutes are read, so nothing has to sweep it).
 */
export class BlockMuteService {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly events: DomainEvents,
  ) {}

  async block(accountId: string, targetId: string): Promise<void> {
    if (accountId === targetId) throw new KithError("relationship.self");
    await this.#accountExists(targetId);
    const now = this.deps.clock.now().toISOString();
    const removed = await this.deps.storage.transaction(async (trx) => {
      await insertBlock(trx, { id: this.deps.ids.next("block"), accountId, targetId, now });
      const unfollowed = await removeFollow(trx, accountId, targetId);
      const unfollowedBy = await removeFollow(trx, targetId, accountId);
      await deletePair(trx, "follow_requests", accountId, targetId);
      await deletePair(trx, "follow_requests", targetId, accountId);
      // The follows go with their notices, which an unblock would otherwise show again.
      await deleteFollowNotifications(trx, accountId, targetId);
      await deleteFollowNotifications(trx, targetId, accountId);
      return { unfollowed, unfollowedBy };
    });
    const events: DomainEvent[] = [];
    if (removed.unfollowed) events.push({ type: "follow.removed", accountId, targetAccountId: targetId });
    if (removed.unfollowedBy) events.push({ type: "follow.removed", accountId: targetId, targetAccountId: accountId });
    events.push({ type: "block.created", accountId, targetAccountId: targetId });
    for (const event of events) await this.events.emit(event);
  }

  async unblock(accountId: string, targetId: string): Promise<void> {
    await this.#accountExists(targetId);
    if (await deletePair(this.deps.storage.db, "blocks", accountId, targetId)) {
      await this.events.emit({ type: "block.removed", accountId, targetAccountId: targetId });
    }
  }

  /** Mutes an account, or changes an existing mute's options and end. */
  async mute(accountId: string, targetId: string, options: MuteOptions = {}): Promise<void> {
    if (accountId === targetId) throw new KithError("relationship.self");
    await this.#accountExists(targetId);
    const now = this.deps.clock.now();
    const duration = options.durationSeconds ?? 0;
    const expiresAt = duration > 0 ? new Date(now.getTime() + duration * 1000).toISOString() : null;
    await upsertMute(this.deps.storage.db, {
      id: this.deps.ids.next("mute"),
      accountId,
      targetId,
      hideNotifications: options.notifications ?? true,
      expiresAt,
      now: now.toISOString(),
    });
    await this.events.emit({ type: "mute.created", accountId, targetAccountId: targetId });
  }

  async unmute(accountId: string, targetId: string): Promise<void> {
    await this.#accountExists(targetId);
    await deletePair(this.deps.storage.db, "mutes", accountId, targetId);
  }

  async #accountExists(id: string): Promise<void> {
    const found = await existingAccountIds(this.deps.storage.db, [id], { withSuspended: true });
    if (!found.has(id)) throw new KithError("account.not_found");
  }
}
