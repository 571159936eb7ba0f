import { type GroupAccounts, isGroupAccountId } from "../accounts/group-accounts.js";
import type { Kysely } from "kysely";
import { readFlag, writeFlag } from "../../platform/storage/boolean-columns.js";
import { KithError } from "../../domain/errors.js";
import {
  adjustFollowCounters,
  deletePair,
  existingAccountIds,
  findFollowTarget,
  findPair,
  followBarrier,
  insertFollow,
  insertFollowRequest,
  pairExists,
  removeFollow,
  updateFollowOptions,
} from "./relationships-store.js";
import type { Database } from "../../ports/storage-schema.js";
import type { ServiceDeps } from "../service-deps.js";
import type { DomainEvents } from "../../platform/events/domain-events.js";
import { deleteFollowNotifications } from "../notifications/notifications-store.js";

/** What a follower chooses: boosts in home, a notification per status, which languages. */
export interface FollowOptions {
  readonly reblogs?: boolean;
  readonly notify?: boolean;
  /** Null or empty for every language. */
  readonly languages?: readonly string[] | null;
}

export type FollowOutcome = "following" | "requested";

/**
 * Following, follow requests and their answers. Each change and the two
 * counters it moves are written in one transaction; the events go out after
 * the commit, so reactions (home feeds, notifications, federation) see it.
 */
export class FollowService {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly events: DomainEvents,
    /** Following a group's account is joining the group: the groups module decides, by the group's join mode. */
    private readonly groupAccounts: Pick<GroupAccounts, "assertVisible" | "provider">,
  ) {}

  /**
   * Follows an account, or asks to when it is locked or on another server
   * (whose answer arrives over federation). Following again changes the
   * options of the existing follow or request.
   */
  async follow(followerId: string, targetId: string, options: FollowOptions = {}): Promise<FollowOutcome> {
    if (followerId === targetId) throw new KithError("relationship.self");
    if (isGroupAccountId(targetId)) {
      await this.groupAccounts.assertVisible(followerId, targetId);
      return this.groupAccounts.provider().follow(followerId, targetId);
    }
    const now = this.deps.clock.now().toISOString();
    const changes = {
      ...(options.reblogs !== undefined && { show_reblogs: writeFlag(options.reblogs) }),
      ...(options.notify !== undefined && { notify: writeFlag(options.notify) }),
      ...(options.languages !== undefined && {
        languages: options.languages && options.languages.length > 0 ? JSON.stringify(options.languages) : null,
      }),
    };
    const { outcome, event } = await this.deps.storage.transaction(async (trx) => {
      const target = await findFollowTarget(trx, targetId);
      if (!target || target.suspended_at !== null) throw new KithError("account.not_found");
      for (const table of ["follows", "follow_requests"] as const) {
        if (await findPair(trx, table, followerId, targetId)) {
          if (Object.keys(changes).length > 0) await updateFollowOptions(trx, table, followerId, targetId, changes, now);
          return { outcome: table === "follows" ? ("following" as const) : ("requested" as const), event: null };
        }
      }
      await this.#refuseIfBarred(trx, followerId, targetId);
      const row = {
        account_id: followerId,
        target_account_id: targetId,
        show_reblogs: writeFlag(options.reblogs ?? true),
        notify: writeFlag(options.notify ?? false),
        languages: changes.languages ?? null,
        uri: null,
        created_at: now,
        updated_at: now,
      };
      const askFirst = readFlag(target.locked) || target.domain !== null;
      if (askFirst) {
        await insertFollowRequest(trx, this.deps.ids.next("followRequest"), row);
        return {
          outcome: "requested" as const,
          event: { type: "follow.requested", accountId: followerId, targetAccountId: targetId } as const,
        };
      }
      await insertFollow(trx, this.deps.ids.next("follow"), row);
      await adjustFollowCounters(trx, followerId, targetId, 1);
      return {
        outcome: "following" as const,
        event: { type: "follow.created", accountId: followerId, targetAccountId: targetId } as const,
      };
    });
    if (event) await this.events.emit(event);
    return outcome;
  }

  /** Stops following, or withdraws a pending request; doing it twice is not an error. */
  async unfollow(followerId: string, targetId: string): Promise<void> {
    if (isGroupAccountId(targetId)) {
      await this.groupAccounts.assertVisible(followerId, targetId);
      return this.groupAccounts.provider().unfollow(followerId, targetId);
    }
    await this.#accountExists(targetId);
    const removed = await this.deps.storage.transaction(async (trx) => {
      const requestUri = (await findPair(trx, "follow_requests", followerId, targetId))?.uri;
      const requested = await deletePair(trx, "follow_requests", followerId, targetId);
      // Read after the request is taken: an Accept taking it at the same time has made its follow by now, which goes too.
      const followUri = (await findPair(trx, "follows", followerId, targetId))?.uri;
      const followed = await removeFollow(trx, followerId, targetId);
      if (followed || requested) await deleteFollowNotifications(trx, followerId, targetId);
      return followed || requested ? { uri: followUri ?? requestUri ?? null } : null;
    });
    if (removed)
      await this.events.emit({ type: "follow.removed", accountId: followerId, targetAccountId: targetId, followUri: removed.uri });
  }

  /** Makes an account stop following the caller. */
  async removeFromFollowers(accountId: string, followerId: string): Promise<void> {
    await this.#accountExists(followerId);
    const removed = await this.deps.storage.transaction(async (trx) => {
      const uri = (await findPair(trx, "follows", followerId, accountId))?.uri ?? null;
      if (!(await removeFollow(trx, followerId, accountId))) return null;
      await deleteFollowNotifications(trx, followerId, accountId);
      return { uri };
    });
    if (removed)
      await this.events.emit({ type: "follow.removed", accountId: followerId, targetAccountId: accountId, followUri: removed.uri });
  }

  /** Accepts the request `requesterId` sent to `accountId`. */
  async authorize(accountId: string, requesterId: string): Promise<void> {
    const now = this.deps.clock.now().toISOString();
    await this.deps.storage.transaction(async (trx) => {
      const request = await findPair(trx, "follow_requests", requesterId, accountId);
      if (!request) throw new KithError("follow_request.not_found");
      await deletePair(trx, "follow_requests", requesterId, accountId);
      if (await pairExists(trx, "follows", requesterId, accountId)) return;
      const { id: _requestId, ...options } = request;
      await insertFollow(trx, this.deps.ids.next("follow"), { ...options, created_at: now, updated_at: now });
      await adjustFollowCounters(trx, requesterId, accountId, 1);
    });
    await this.events.emit({ type: "follow.created", accountId: requesterId, targetAccountId: accountId });
  }

  /** Refuses the request `requesterId` sent to `accountId`. */
  async reject(accountId: string, requesterId: string): Promise<void> {
    const request = await findPair(this.deps.storage.db, "follow_requests", requesterId, accountId);
    const removed = await deletePair(this.deps.storage.db, "follow_requests", requesterId, accountId);
    if (!removed) throw new KithError("follow_request.not_found");
    await this.events.emit({
      type: "follow.rejected",
      accountId: requesterId,
      targetAccountId: accountId,
      followUri: request?.uri ?? null,
    });
  }

  /** Blocks either way forbid a new follow, and so do domain blocks: the follower's of the target's domain, and the target's of the follower's. */
  async #refuseIfBarred(trx: Kysely<Database>, followerId: string, targetId: string): Promise<void> {
    const barrier = await followBarrier(trx, followerId, targetId);
    if (barrier === "blocked") throw new KithError("relationship.blocked");
    if (barrier === "domain_blocked") throw new KithError("relationship.domain_blocked");
  }

  async #accountExists(id: string): Promise<void> {
    const found = await existingAccountIds(this.deps.storage.db, [id], { withSuspended: true });
    if (!found.has(id)) throw new KithError("account.not_found");
  }
}
