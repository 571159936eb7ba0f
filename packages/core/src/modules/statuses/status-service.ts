import type { Kysely } from "kysely";
import { KithError } from "../../domain/errors.js";
import {
  bumpAccountStatuses,
  bumpStatusCounter,
  deleteStatusRows,
  ensureTags,
  findIdempotentStatus,
  findStatus,
  findVisibleStatus,
  insertStatus,
  postingDefaults,
  reachedRemoteAccountIds,
  rememberIdempotencyKey,
  replaceMentions,
  replaceStatusTags,
} from "./statuses-store.js";
import { deleteActNotifications } from "../notifications/notifications-store.js";
import { readFlag, writeFlag } from "../../platform/storage/boolean-columns.js";
import { insertHomeFeedEntries } from "../timelines/home-feed-store.js";
import type { AccountRow, Database, StatusRow, Visibility } from "../../ports/storage-schema.js";
import type { BatchedWrites } from "../../platform/storage/batched-writes.js";
import type { ServiceDeps } from "../service-deps.js";
import type { DomainEvents, NewLocalPost } from "../../platform/events/domain-events.js";
import type { PollInput, PollService } from "./poll-service.js";
import type { GroupAccounts } from "../accounts/group-accounts.js";
import { type LookedUpMentions, type RemoteHandleResolver, lookUpUnknownMentions, mentionTargets } from "./mention-accounts.js";
import type { PendingStatusReactions } from "./pending-status-reactions.js";
import type { AudienceMembership, StatusPlacement } from "./status-placement.js";
import { audienceOf, deleteAudience, deleteAudienceMember, insertAudienceMember, insertStatusAudience } from "./audiences-store.js";
import { countedLength, formatText, mentionHandles, normalizeTag } from "./text-formatter.js";
import { type ChosenQuotePolicy, policyOfNewStatus } from "./quote-policy.js";
import { type NewQuote, quoteTarget } from "./quote-targets.js";
import { bumpQuotesCount } from "./quotes-store.js";

/** Attaches uploaded media to a status inside the status's transaction (the media part provides it). */
export interface StatusMediaAttacher {
  attachToStatus(db: Kysely<Database>, input: { accountId: string; statusId: string; mediaIds: readonly string[] }): Promise<void>;
}

export interface StatusInput {
  readonly text?: string;
  readonly mediaIds?: readonly string[];
  readonly poll?: PollInput;
  readonly inReplyToId?: string;
  readonly sensitive?: boolean;
  readonly spoilerText?: string;
  readonly visibility?: Visibility;
  readonly language?: string;
  /** Same key from the same account: the same status comes back, no second one is made. */
  readonly idempotencyKey?: string;
  /** The session the status is made through, to name its application. */
  readonly sessionId?: string;
  /** The group the status is made in (Kith's `group_id`), decided by the placement the groups module sets. */
  readonly groupId?: string;
  /** The group's channel the status is made in (Kith's `channel_id`), else the group's primary channel. */
  readonly channelId?: string;
  /** Mastodon's `allowed_mentions`: the status is refused if its text mentions any account not named here. */
  readonly allowedMentions?: readonly string[];
  /** Mastodon's `quoted_status_id`: the status this one quotes. */
  readonly quotedStatusId?: string;
  /** Mastodon's `quote_approval_policy`: who may quote this status (private and direct ones: nobody). */
  readonly quotePolicy?: ChosenQuotePolicy;
}

export interface EditInput {
  readonly text?: string;
  readonly spoilerText?: string;
  readonly sensitive?: boolean;
  readonly language?: string;
  readonly mediaIds?: readonly string[];
  readonly poll?: PollInput;
}

/** How long an `Idempotency-Key` keeps answering with the same status. */
export const IDEMPOTENCY_WINDOW_MS = 60 * 60 * 1000;

/** A status just written, as it was stored: enough to render it without reading it back. */
export interface WrittenPost {
  readonly row: StatusRow;
  /** The author's row after the status was counted. */
  readonly author: AccountRow;
  /** The mentioned accounts, in the order the mentions were written. */
  readonly mentionIds: readonly string[];
  /** The tags' names, in the order they were written. */
  readonly tagNames: readonly string[];
  readonly application: { readonly name: string; readonly website: string | null } | null;
  readonly hasMedia: boolean;
  readonly hasPoll: boolean;
}

/** The id of a status asked for, and what was written for it; `written` is null when an idempotency key returned an earlier status. */
export interface Posted {
  readonly id: string;
  /** Its author, who is answered. */
  readonly accountId: string;
  readonly written: WrittenPost | null;
}

interface Rendered {
  readonly html: string;
  readonly mentionIds: readonly string[];
  readonly tags: readonly { name: string; displayName: string }[];
}

/**
 * Mastodon's `allowed_mentions` check: the accounts mentioned beyond those allowed are named, in the refusal's
 * details, by id (the route renders them as `unexpected_accounts`).
 */
function refuseUnexpectedMentions(mentionIds: readonly string[], allowed: readonly string[]): void {
  const expected = new Set(allowed);
  const unexpected = [...new Set(mentionIds)].filter((id) => !expected.has(id));
  if (unexpected.length === 0) return;
  throw new KithError("status.unexpected_mentions", {
    details: unexpected.map((id) => ({ field: "allowed_mentions", message: id, code: "unexpected_account" })),
  });
}

/**
 * Writing statuses: create, edit, delete. Counters (`replies_count`,
 * `statuses_count`, `last_status_at`), mentions, tags, polls, media and the
 * idempotency key are written in the status's transaction, committed with
 * the other writes of the same moment (`BatchedWrites`: one commit for
 * several statuses); the domain event goes out after the commit, and
 * timelines, notifications and streaming react to it. A new status's
 * transaction also records its reactions as pending, so they are not lost
 * if the process stops before they ran.
 */
export class StatusService {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "clock" | "ids" | "config">,
    private readonly events: DomainEvents,
    private readonly polls: PollService,
    private readonly media: StatusMediaAttacher,
    private readonly pendingReactions: PendingStatusReactions,
    /** New statuses and boosts are committed with the other writes of the same moment. */
    private readonly writes: Pick<BatchedWrites, "transaction">,
    /** Looks up remote accounts a status mentions that this server has never seen; none in a server that does not federate. */
    private readonly remoteHandles: RemoteHandleResolver | null = null,
    /** Groups' accounts the author may not see, which a handle must not resolve to (a secret group leaks nowhere). */
    private readonly groupAccounts: Pick<GroupAccounts, "hidden"> | null = null,
  ) {}

  #placement: StatusPlacement | null = null;

  /** Sets what decides a new status's place beyond its author's timeline (the groups module's). */
  placeStatusesWith(placement: StatusPlacement): void {
    this.#placement = placement;
  }

  /** The members of closed audiences, which a module keeps (see `Placement.audienceId`). */
  readonly audiences: AudienceMembership = {
    add: insertAudienceMember,
    remove: deleteAudienceMember,
    clear: deleteAudience,
  };

  /** Keys older than this are forgotten, as Mastodon keeps them an hour: a retry comes soon, a reused key later means a new status. */
  #idempotencySince(): string {
    return new Date(this.deps.clock.now().getTime() - IDEMPOTENCY_WINDOW_MS).toISOString();
  }

  /** The status if the viewer may see it; 404 otherwise, whether it exists or not. */
  async findVisible(statusId: string, viewerId: string | null): Promise<StatusRow> {
    const row = await findVisibleStatus(this.deps.storage.db, statusId, viewerId);
    if (!row) throw new KithError("status.not_found");
    return row;
  }

  /** The viewer's own status: 404 when it may not be seen, 403 when it is someone else's. */
  async findOwn(statusId: string, accountId: string): Promise<StatusRow> {
    const row = await this.findVisible(statusId, accountId);
    if (row.account_id !== accountId || row.reblog_of_id !== null) throw new KithError("status.forbidden");
    return row;
  }

  #host: string | undefined;

  #ownHost(): string {
    this.#host ??= new URL(this.deps.config.origin).host.toLowerCase();
    return this.#host;
  }

  /** Outside the status's transaction: unknown remote mentions of `text` looked up on their servers. */
  #lookUpMentions(text: string): Promise<LookedUpMentions> {
    return lookUpUnknownMentions(this.deps.storage.db, this.#ownHost(), mentionHandles(text), this.remoteHandles);
  }

  /**
   * `audience`: the closed audience (a secret group) the status is for, asked only when a handle names a group's
   * account that a guest may not see. Such an account is mentioned in its own group's statuses only: anywhere else,
   * some who read the status could not see the group.
   */
  async #render(db: Kysely<Database>, text: string, lookedUp: LookedUpMentions, audience: () => Promise<string | null>): Promise<Rendered> {
    const groups = this.groupAccounts;
    const hidden =
      groups &&
      (async (ids: readonly string[]) => {
        const concealed = await groups.hidden(null, ids, db);
        if (concealed.size === 0) return concealed;
        const own = await audience();
        return own === null ? concealed : new Set([...concealed].filter((id) => id !== own));
      });
    const resolve = await mentionTargets(db, this.#ownHost(), mentionHandles(text), lookedUp, hidden ?? undefined);
    const formatted = formatText(text, this.deps.config.origin, resolve);
    return {
      html: formatted.html,
      mentionIds: formatted.mentions.map((mention) => mention.id),
      tags: formatted.tags.map((tag) => ({ name: normalizeTag(tag), displayName: tag })),
    };
  }

  /**
   * Refuses what `post` would refuse of the input by itself (blank or too long text, too many media, a bad poll),
   * for a status kept to be posted later.
   */
  validateDraft(input: StatusInput): void {
    this.#validate({
      text: input.text ?? "",
      spoilerText: input.spoilerText ?? "",
      mediaIds: [...new Set(input.mediaIds ?? [])],
      poll: input.poll,
    });
  }

  #validate(input: { text: string; spoilerText: string; mediaIds: readonly string[]; poll: PollInput | undefined }): void {
    const limits = this.deps.config.limits.statuses;
    const problems: { field: string; message: string }[] = [];
    if (input.text.trim().length === 0 && input.mediaIds.length === 0) problems.push({ field: "status", message: "can't be blank" });
    const length =
      countedLength(input.text, limits.charactersReservedPerUrl) + countedLength(input.spoilerText, limits.charactersReservedPerUrl);
    if (length > limits.maxCharacters)
      problems.push({ field: "status", message: `is too long (maximum is ${limits.maxCharacters} characters)` });
    if (input.mediaIds.length > limits.maxMediaAttachments) {
      problems.push({ field: "media_ids", message: `must have at most ${limits.maxMediaAttachments} attachments` });
    }
    if (input.poll && input.mediaIds.length > 0) problems.push({ field: "poll", message: "cannot be combined with media attachments" });
    if (problems.length > 0) throw new KithError("status.invalid", { details: problems });
    if (input.poll) this.polls.validate(input.poll);
  }

  /**
   * Writes the status's mentions and tags and returns the tags' names in the order they were written. `fresh`: the
   * status was just inserted, so it has no mentions or tags to replace.
   */
  async #writeRelations(
    trx: Kysely<Database>,
    statusId: string,
    rendered: Rendered,
    now: string,
    options: { fresh?: boolean } = {},
  ): Promise<string[]> {
    await replaceMentions(trx, statusId, rendered.mentionIds, now, options);
    const tagIds = await ensureTags(trx, rendered.tags, () => this.deps.ids.next("tag"), now);
    await replaceStatusTags(trx, statusId, [...tagIds.values()], options);
    return [...tagIds.keys()];
  }

  /** Creates a status (or returns the one made earlier with the same idempotency key) and returns its id. */
  async create(accountId: string, input: StatusInput): Promise<string> {
    return (await this.post(accountId, input)).id;
  }

  /** As `create`, with what was written, so the answer is rendered from it. */
  async post(accountId: string, input: StatusInput): Promise<Posted> {
    const db = this.deps.storage.db;
    if (input.idempotencyKey) {
      const earlier = await findIdempotentStatus(db, accountId, input.idempotencyKey, this.#idempotencySince());
      if (earlier && (await findStatus(db, earlier))) return { id: earlier, accountId, written: null };
    }
    const text = input.text ?? "";
    const spoilerText = input.spoilerText ?? "";
    const mediaIds = [...new Set(input.mediaIds ?? [])];
    this.#validate({ text, spoilerText, mediaIds, poll: input.poll });
    const parent = input.inReplyToId ? await this.findVisible(input.inReplyToId, accountId) : null;
    if (parent?.reblog_of_id) throw new KithError("status.not_found");
    const quote = input.quotedStatusId ? await this.#quoteOf(accountId, input.quotedStatusId) : null;
    const request = { accountId, groupId: input.groupId ?? null, channelId: input.channelId ?? null, parentId: parent?.id ?? null };
    if ((request.groupId !== null || request.channelId !== null) && !this.#placement) {
      throw new KithError("status.invalid", { details: [{ field: "group_id", message: "groups are not enabled on this server" }] });
    }
    const placement = this.#placement ? await this.#placement.place(request) : null;
    const defaults = await postingDefaults(db, accountId, input.sessionId ?? null);
    if (!defaults) throw new KithError("account.not_found");
    let visibility: Visibility = input.visibility ?? (defaults.default_visibility as Visibility | null) ?? "public";
    // A limited account's public statuses stay out of public timelines, as Mastodon does.
    if (visibility === "public" && defaults.silenced_at !== null) visibility = "unlisted";
    if (placement?.visibility) visibility = placement.visibility;
    // A quote of a private status (its author's own) stays among those who may see that status, as Mastodon keeps it.
    if (quote?.private && (visibility === "public" || visibility === "unlisted")) visibility = "private";
    const sensitive = (input.sensitive ?? readFlag(defaults.default_sensitive)) || spoilerText.length > 0;
    const applicationId = defaults.app_id ?? null;
    const lookedUp = await this.#lookUpMentions(text);
    const now = this.deps.clock.now().toISOString();
    const id = this.deps.ids.next("status");
    const conversationId = parent?.conversation_id ?? this.deps.ids.next("conversation");
    let rendered: Rendered;
    let written: WrittenPost;
    try {
      ({ rendered, written } = await this.writes.transaction(async (trx) => {
        const rendered = await this.#render(trx, text, lookedUp, async () => placement?.audienceId ?? null);
        if (input.allowedMentions) refuseUnexpectedMentions(rendered.mentionIds, input.allowedMentions);
        await this.pendingReactions.record(trx, id, now);
        const row = await insertStatus(trx, {
          id,
          account_id: accountId,
          local: writeFlag(true),
          in_reply_to_id: parent?.id ?? null,
          in_reply_to_account_id: parent?.account_id ?? null,
          conversation_id: conversationId,
          text,
          content: rendered.html,
          spoiler_text: spoilerText,
          sensitive: writeFlag(sensitive),
          visibility,
          language: input.language ?? defaults.default_language ?? null,
          application_id: applicationId,
          quote_policy: policyOfNewStatus(input.quotePolicy, visibility),
          ...(quote && { quote_uri: quote.uri, quote_id: quote.statusId, quote_state: quote.state }),
          created_at: now,
          updated_at: now,
        });
        if (quote?.state === "accepted") await bumpQuotesCount(trx, quote.statusId, 1);
        const tagNames = await this.#writeRelations(trx, id, rendered, now, { fresh: true });
        if (mediaIds.length > 0) await this.media.attachToStatus(trx, { accountId, statusId: id, mediaIds });
        if (input.poll) await this.polls.createInTransaction(trx, id, accountId, input.poll);
        if (placement) await placement.record(trx, id, rendered.mentionIds);
        if (placement?.audienceId && visibility === "direct") await insertStatusAudience(trx, id, placement.audienceId);
        if (parent) await bumpStatusCounter(trx, parent.id, "replies_count", 1);
        const author = await bumpAccountStatuses(trx, accountId, 1, now);
        if (!author) throw new KithError("account.not_found");
        if (input.idempotencyKey) await rememberIdempotencyKey(trx, accountId, input.idempotencyKey, id, now);
        // The author's own home shows the post as soon as it exists; everyone else's with the fan-out below.
        await insertHomeFeedEntries(trx, [{ accountId, statusId: id, authorId: accountId, reblogOfId: null, createdAt: now }]);
        const application =
          defaults.app_id !== null && defaults.app_name !== null ? { name: defaults.app_name, website: defaults.app_website } : null;
        return {
          rendered,
          written: {
            row,
            author,
            mentionIds: rendered.mentionIds,
            tagNames,
            application,
            hasMedia: mediaIds.length > 0,
            hasPoll: input.poll !== undefined,
          },
        };
      }));
    } catch (error) {
      // Two requests with the same key at once: the second one's key insert loses; answer with the first status.
      if (input.idempotencyKey) {
        const earlier = await findIdempotentStatus(db, accountId, input.idempotencyKey, this.#idempotencySince());
        if (earlier && (await findStatus(db, earlier))) return { id: earlier, accountId, written: null };
      }
      throw error;
    }
    // Fan-out, notifications, streams and federation follow the answer rather than delay it.
    const { mentionIds, tags } = rendered;
    const post: NewLocalPost = {
      visibility,
      inReplyToId: parent?.id ?? null,
      inReplyToAccountId: parent?.account_id ?? null,
      conversationId,
      createdAt: now,
      tagNames: [...new Set(tags.map((tag) => tag.name))],
      mentionedAccountIds: mentionIds,
      content: rendered.html,
    };
    this.events.emitLater({ type: "status.created", statusId: id, accountId, post }, async () => {
      await this.pendingReactions.finish(id);
      if (quote) {
        const { statusId: quotedStatusId, accountId: quotedAccountId, state } = quote;
        await this.events.emit({ type: "quote.created", statusId: id, accountId, quotedStatusId, quotedAccountId, state });
      }
    });
    return { id, accountId, written };
  }

  /** The status `quotedId` as a new status of `accountId` may quote it; 404 when not visible, 403 when it may not be quoted. */
  async #quoteOf(accountId: string, quotedId: string): Promise<NewQuote> {
    const quoted = await this.findVisible(quotedId, accountId);
    return quoteTarget(this.deps.storage.db, this.deps.config.origin, accountId, quoted);
  }

  /** Edits the caller's own status, keeping every version in `status_edits`. */
  async edit(accountId: string, statusId: string, input: EditInput): Promise<void> {
    const current = await this.findOwn(statusId, accountId);
    const db = this.deps.storage.db;
    const currentMedia = (
      await db.selectFrom("media_attachments").select("id").where("status_id", "=", statusId).orderBy("id").execute()
    ).map((row) => row.id);
    const currentPoll = await db.selectFrom("polls").select(["options"]).where("status_id", "=", statusId).executeTakeFirst();
    const text = input.text ?? current.text;
    const spoilerText = input.spoilerText ?? current.spoiler_text;
    const mediaIds = input.mediaIds ? [...new Set(input.mediaIds)] : currentMedia;
    this.#validate({ text, spoilerText, mediaIds, poll: input.poll });
    const pollChanged =
      input.poll !== undefined && JSON.stringify(input.poll.options.map((option) => option.trim())) !== (currentPoll?.options ?? null);
    const lookedUp = await this.#lookUpMentions(text);
    const now = this.deps.clock.now().toISOString();
    await this.deps.storage.transaction(async (trx) => {
      const edits = await trx.selectFrom("status_edits").select("id").where("status_id", "=", statusId).limit(1).execute();
      if (edits.length === 0) {
        // The first edit also records the original, so the history starts where the status did.
        await trx
          .insertInto("status_edits")
          .values({
            id: this.deps.ids.next("statusEdit"),
            status_id: statusId,
            account_id: accountId,
            text: current.text,
            content: current.content,
            spoiler_text: current.spoiler_text,
            sensitive: writeFlag(readFlag(current.sensitive)),
            media_ids: JSON.stringify(currentMedia),
            poll_options: currentPoll?.options ?? null,
            created_at: current.created_at,
          })
          .execute();
      }
      const rendered = await this.#render(trx, text, lookedUp, () => audienceOf(trx, statusId));
      const sensitive = (input.sensitive ?? readFlag(current.sensitive)) || spoilerText.length > 0;
      await trx
        .updateTable("statuses")
        .set({
          text,
          content: rendered.html,
          spoiler_text: spoilerText,
          sensitive: writeFlag(sensitive),
          language: input.language ?? current.language,
          edited_at: now,
          updated_at: now,
        })
        .where("id", "=", statusId)
        .execute();
      await this.#writeRelations(trx, statusId, rendered, now);
      if (this.#placement?.edited) await this.#placement.edited(trx, statusId, rendered.mentionIds);
      if (input.mediaIds) {
        const removed = currentMedia.filter((id) => !mediaIds.includes(id));
        if (removed.length > 0) await trx.updateTable("media_attachments").set({ status_id: null }).where("id", "in", removed).execute();
        const added = mediaIds.filter((id) => !currentMedia.includes(id));
        if (added.length > 0) await this.media.attachToStatus(trx, { accountId, statusId, mediaIds: added });
      }
      if (pollChanged && input.poll) {
        await this.polls.removeInTransaction(trx, statusId);
        await this.polls.createInTransaction(trx, statusId, accountId, input.poll);
      }
      const poll = await trx.selectFrom("polls").select("options").where("status_id", "=", statusId).executeTakeFirst();
      await trx
        .insertInto("status_edits")
        .values({
          id: this.deps.ids.next("statusEdit"),
          status_id: statusId,
          account_id: accountId,
          text,
          content: rendered.html,
          spoiler_text: spoilerText,
          sensitive: writeFlag(sensitive),
          media_ids: JSON.stringify(mediaIds),
          poll_options: poll?.options ?? null,
          created_at: now,
        })
        .execute();
    });
    await this.events.emit({ type: "status.updated", statusId, accountId });
  }

  /**
   * Deletes the caller's own post with everything hanging off it, boosts of
   * it included, and keeps the counters in step. Render the status before
   * calling this to answer with its source.
   */
  async delete(accountId: string, statusId: string): Promise<void> {
    const row = await this.findVisible(statusId, accountId);
    // One's own boosts may be deleted like statuses, as Mastodon allows; editing them is refused by findOwn.
    if (row.account_id !== accountId) throw new KithError("status.forbidden");
    await this.#deleteRows(row);
  }

  /**
   * Deletes a status as a moderator removes it, whoever wrote it: the
   * caller has checked the right to. Its author's server learns of it as of
   * a deletion by the author when the author is local.
   */
  async remove(statusId: string): Promise<StatusRow> {
    const row = await findStatus(this.deps.storage.db, statusId);
    if (!row) throw new KithError("status.not_found");
    await this.#deleteRows(row);
    return row;
  }

  async #deleteRows(row: StatusRow): Promise<void> {
    const reached = await reachedRemoteAccountIds(this.deps.storage.db, row);
    const boosts = await this.deps.storage.transaction(async (trx) => {
      const removedBoosts = await deleteStatusRows(trx, [row.id]);
      if (row.in_reply_to_id) await bumpStatusCounter(trx, row.in_reply_to_id, "replies_count", -1);
      if (row.reblog_of_id) {
        await bumpStatusCounter(trx, row.reblog_of_id, "reblogs_count", -1);
        await deleteActNotifications(trx, row.account_id, "reblog", row.reblog_of_id);
      }
      await bumpAccountStatuses(trx, row.account_id, -1, null);
      for (const boost of removedBoosts) await bumpAccountStatuses(trx, boost.account_id, -1, null);
      return removedBoosts;
    });
    for (const boost of boosts) {
      await this.events.emit({
        type: "status.deleted",
        statusId: boost.id,
        accountId: boost.account_id,
        reblogOfId: boost.reblog_of_id,
        visibility: boost.visibility,
      });
    }
    await this.events.emit({
      type: "status.deleted",
      statusId: row.id,
      accountId: row.account_id,
      reblogOfId: row.reblog_of_id,
      visibility: row.visibility,
      reachedAccountIds: reached,
    });
  }

  /** Boosts a status; boosting it again returns the existing boost. Returns the boost's id. */
  async reblog(accountId: string, statusId: string, visibility: Visibility = "public"): Promise<string> {
    let target = await this.findVisible(statusId, accountId);
    if (target.reblog_of_id) target = await this.findVisible(target.reblog_of_id, accountId);
    const own = target.account_id === accountId;
    if (target.visibility === "direct" || (target.visibility === "private" && !own)) throw new KithError("status.not_reblogable");
    const db = this.deps.storage.db;
    const existing = await db
      .selectFrom("statuses")
      .select("id")
      .where("reblog_of_id", "=", target.id)
      .where("account_id", "=", accountId)
      .executeTakeFirst();
    if (existing) return existing.id;
    const boostVisibility: Visibility = target.visibility === "private" ? "private" : visibility === "direct" ? "public" : visibility;
    const now = this.deps.clock.now().toISOString();
    const id = this.deps.ids.next("status");
    try {
      await this.writes.transaction(async (trx) => {
        await insertStatus(trx, {
          id,
          account_id: accountId,
          local: writeFlag(true),
          reblog_of_id: target.id,
          visibility: boostVisibility,
          created_at: now,
          updated_at: now,
        });
        await bumpStatusCounter(trx, target.id, "reblogs_count", 1);
        await bumpAccountStatuses(trx, accountId, 1, now);
      });
    } catch (error) {
      const raced = await db
        .selectFrom("statuses")
        .select("id")
        .where("reblog_of_id", "=", target.id)
        .where("account_id", "=", accountId)
        .executeTakeFirst();
      if (raced) return raced.id;
      throw error;
    }
    await this.events.emit({ type: "status.created", statusId: id, accountId });
    return id;
  }

  /** Undoes the caller's boost of a status, if any. Returns the boosted status's id. */
  async unreblog(accountId: string, statusId: string): Promise<string> {
    let target = await this.findVisible(statusId, accountId);
    if (target.reblog_of_id) target = await this.findVisible(target.reblog_of_id, accountId);
    const boost = await this.deps.storage.db
      .selectFrom("statuses")
      .selectAll()
      .where("reblog_of_id", "=", target.id)
      .where("account_id", "=", accountId)
      .executeTakeFirst();
    if (boost) await this.#deleteRows(boost);
    return target.id;
  }
}
