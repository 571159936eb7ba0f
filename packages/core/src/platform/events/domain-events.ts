import { getLogger } from "../../logging.js";
import { PendingWork } from "../../pending-work.js";
import type { ModerationAction } from "../../domain/moderation-actions.js";

/**
 * What happened in the social core, told to the parts that react to it:
 * timelines fan statuses out, notifications are written, streams are fed,
 * federation delivers. Emitted after the change is committed, by the service
 * that made it; each reaction is independent of the others, and a failing
 * reaction is logged without undoing the change or stopping the rest (heavy
 * reactions enqueue a job so they are retried and survive a crash).
 */
export type DomainEvent =
  /**
   * A status or a boost (`reblog_of_id` set) was written. `status` is set when a local account wrote a status (not a
   * boost) through the API, `remoteStatus` when a remote account's status (not a boost) was stored from an incoming
   * activity: what the reactions need of it, so none of them reads the status back.
   */
  | {
      readonly type: "status.created";
      readonly statusId: string;
      readonly accountId: string;
      readonly post?: NewLocalPost;
      readonly remoteStatus?: NewRemotePost;
    }
  | { readonly type: "status.updated"; readonly statusId: string; readonly accountId: string }
  /**
   * A status quotes another (`statusId`, by `accountId`, quotes `quotedStatusId` by `quotedAccountId`): made here, or
   * another server's quote of a local status authorized. `state`: accepted, or pending the quoted author's answer.
   */
  | {
      readonly type: "quote.created";
      readonly statusId: string;
      readonly accountId: string;
      readonly quotedStatusId: string;
      readonly quotedAccountId: string;
      readonly state: "accepted" | "pending";
    }
  /** The quoted status's author took back a quote's authorization; `authorization` is the stamp's id, if one was given. */
  | {
      readonly type: "quote.revoked";
      readonly statusId: string;
      readonly accountId: string;
      readonly quotedStatusId: string;
      readonly quotedAccountId: string;
      readonly authorization: string | null;
    }
  /** Emitted after the row is gone: what reactions need is carried in the event. */
  | {
      readonly type: "status.deleted";
      readonly statusId: string;
      readonly accountId: string;
      readonly reblogOfId: string | null;
      readonly visibility: string;
      /**
       * Remote accounts the status reached beyond the author's followers (mentioned, replied to, or that boosted,
       * favourited or replied to it), read before the rows went: its Delete goes where the status went.
       */
      readonly reachedAccountIds?: readonly string[];
    }
  /**
   * `statusAccountId`: the liked status's author, when the code that stored the favourite had it at hand, and with it
   * `notificationId`: the author's notification that the statement storing the favourite wrote, or null when it did
   * not reach them (`AddedFavourite`); absent, the notification is left to the event's reaction. `received` (here and
   * on its removal): the change came from another server (an incoming Like or its Undo), so there is nothing to send.
   */
  | {
      readonly type: "favourite.created";
      readonly accountId: string;
      readonly statusId: string;
      readonly statusAccountId?: string;
      readonly notificationId?: string | null;
      readonly received?: boolean;
    }
  | { readonly type: "favourite.removed"; readonly accountId: string; readonly statusId: string; readonly received?: boolean }
  | { readonly type: "follow.created"; readonly accountId: string; readonly targetAccountId: string }
  | { readonly type: "follow.requested"; readonly accountId: string; readonly targetAccountId: string }
  /** `followUri`: the id of the Follow activity the follow came from, when it came over federation or was sent there. */
  | { readonly type: "follow.rejected"; readonly accountId: string; readonly targetAccountId: string; readonly followUri?: string | null }
  | { readonly type: "follow.removed"; readonly accountId: string; readonly targetAccountId: string; readonly followUri?: string | null }
  | { readonly type: "block.created"; readonly accountId: string; readonly targetAccountId: string }
  | { readonly type: "block.removed"; readonly accountId: string; readonly targetAccountId: string }
  | { readonly type: "mute.created"; readonly accountId: string; readonly targetAccountId: string }
  | { readonly type: "domain_block.created"; readonly accountId: string; readonly domain: string }
  | { readonly type: "pin.added"; readonly accountId: string; readonly statusId: string }
  | { readonly type: "pin.removed"; readonly accountId: string; readonly statusId: string }
  | { readonly type: "poll.voted"; readonly accountId: string; readonly pollId: string; readonly statusId: string }
  /** A poll's end was reached: voters and the author are notified. */
  | { readonly type: "poll.closed"; readonly pollId: string; readonly statusId: string }
  | { readonly type: "account.updated"; readonly accountId: string }
  | { readonly type: "account.moved"; readonly accountId: string; readonly targetAccountId: string }
  /**
   * A local account is about to be removed: emitted (and awaited) before its rows and key pairs go, so federation
   * can still read who knows it and sign its Delete.
   */
  | { readonly type: "account.deleting"; readonly accountId: string }
  /** A group was deleted with its members and roles (committed): what other modules keep for it goes too. */
  | { readonly type: "group.deleted"; readonly groupId: string }
  /**
   * A moderator or administrator acted on an account, a domain, a role, a group's member or a report (see
   * `ModerationAction`): the audit log records it. Emitted after the action is committed.
   */
  | ({ readonly type: "moderation.action" } & ModerationAction);

/** A new post as it was written: what the reactions to it need. */
export interface NewPost {
  readonly visibility: string;
  readonly inReplyToId: string | null;
  readonly inReplyToAccountId: string | null;
  readonly conversationId: string | null;
  readonly createdAt: string;
  /** Normalised names of its hashtags. */
  readonly tagNames: readonly string[];
  /** Every account it mentions, local or remote. */
  readonly mentionedAccountIds: readonly string[];
  /** Its content, HTML as stored (its links are previewed). */
  readonly content: string;
}

/** A new status by a local account, as it was written (its author's own home entry included). */
export type NewLocalPost = NewPost;

/** A new status by a remote account, as it was stored. */
export interface NewRemotePost extends NewPost {
  /** Its author's domain. */
  readonly authorDomain: string;
}

export type DomainEventType = DomainEvent["type"];
export type DomainEventOf<T extends DomainEventType> = Extract<DomainEvent, { type: T }>;
export type DomainEventHandler<T extends DomainEventType> = (event: DomainEventOf<T>) => Promise<void> | void;

const logger = getLogger(["events"]);

export class DomainEvents {
  readonly #handlers = new Map<DomainEventType, DomainEventHandler<DomainEventType>[]>();
  readonly #pending = new PendingWork();

  /** Adds a reaction to events of one type; the returned function removes it. */
  on<T extends DomainEventType>(type: T, handler: DomainEventHandler<T>): () => void {
    const stored = handler as unknown as DomainEventHandler<DomainEventType>;
    this.#handlers.set(type, [...(this.#handlers.get(type) ?? []), stored]);
    return () => {
      this.#handlers.set(
        type,
        (this.#handlers.get(type) ?? []).filter((h) => h !== stored),
      );
    };
  }

  /**
   * Runs every reaction to `event`, in the order they were added, and waits for
   * them, so a caller (and a test) sees their effects once this returns.
   */
  async emit(event: DomainEvent): Promise<void> {
    for (const handler of this.#handlers.get(event.type) ?? []) {
      try {
        await handler(event as never);
      } catch (error) {
        logger.error("A reaction to {type} failed: {error}", { type: event.type, error });
      }
    }
  }

  /**
   * Runs every reaction to `event` after the caller has moved on (a request
   * answers without waiting for fan-out, notifications, streams and
   * federation). The reactions still run in this process, in order, then
   * `afterwards` if given, and `settled()` waits for them all.
   */
  emitLater(event: DomainEvent, afterwards?: () => Promise<void>): void {
    const run = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.emit(event))
      .then(afterwards)
      .catch((error: unknown) => logger.error("Finishing the reactions to {type} failed: {error}", { type: event.type, error }));
    this.#pending.track(run);
  }

  /** Resolves once every reaction started by `emitLater` (including those they started) has run. */
  async settled(): Promise<void> {
    await this.#pending.settled();
  }
}
