import type { EndorsementSource } from "../accounts/profile-features.js";
import { type GroupAccounts, type GroupStanding, isGroupAccountId } from "../accounts/group-accounts.js";
import type { RelationshipEntity } from "../../mastodon/entities/relationship.js";
import { readFlag } from "../../platform/storage/boolean-columns.js";
import { KithError } from "../../domain/errors.js";
import type { PageRequest } from "../../domain/page.js";
import {
  type RelationshipPageEntry,
  type RelationshipRows,
  blockPage,
  existingAccountIds,
  familiarFollowers,
  findCollectionPrivacy,
  followPage,
  incomingRequestPage,
  loadRelationshipRows,
  mutePage,
  pairExists,
  writeNote,
} from "./relationships-store.js";
import type { ServiceDeps } from "../service-deps.js";

/** A page of accounts listed through relationship rows: `ids` for the `Link` header, `accountIds` to render. */
export interface AccountPage {
  readonly entries: readonly RelationshipPageEntry[];
}

/** Longest private note on an account, as Mastodon allows. */
const MAX_NOTE_LENGTH = 2_000;

/**
 * How accounts stand towards each other, read side: Mastodon's Relationship
 * entity, followers and following lists, familiar followers, blocks, mutes
 * and pending requests as lists, and private notes.
 */
export class RelationshipService {
  constructor(
    private readonly deps: ServiceDeps,
    /** Groups' accounts: hidden from those who may not see their group; followed by its members. */
    private readonly groupAccounts: Pick<GroupAccounts, "hidden" | "assertVisible" | "provider">,
    /** Whom the viewer endorses: read once for the whole list. */
    private readonly endorsements: Pick<EndorsementSource, "endorsedAmong">,
  ) {}

  /** Relationships of the viewer with each account, in the order asked; unknown ids (and suspended ones unless asked) left out. */
  async relationships(viewerId: string, ids: readonly string[], options: { withSuspended?: boolean } = {}): Promise<RelationshipEntity[]> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return [];
    const db = this.deps.storage.db;
    const existing = await existingAccountIds(db, unique, options);
    const hidden = await this.groupAccounts.hidden(viewerId, unique);
    const present = unique.filter((id) => existing.has(id) && !hidden.has(id));
    if (present.length === 0) return [];
    const groups = present.filter(isGroupAccountId);
    const [rows, standings, endorsed] = await Promise.all([
      loadRelationshipRows(db, viewerId, present, this.deps.clock.now().toISOString()),
      groups.length > 0 ? this.groupAccounts.provider().standings(viewerId, groups) : new Map<string, GroupStanding>(),
      this.endorsements.endorsedAmong(viewerId, present),
    ]);
    return present.map((id) => {
      const relationship = relationshipOf(id, rows, endorsed);
      const standing = standings.get(id);
      // A member follows the group, reblogs shown as any follow's; a pending join request is a follow request.
      return standing
        ? { ...relationship, following: standing.member, showing_reblogs: standing.member, requested: standing.requested }
        : relationship;
    });
  }

  async relationship(viewerId: string, id: string): Promise<RelationshipEntity> {
    const [found] = await this.relationships(viewerId, [id], { withSuspended: true });
    if (!found) throw new KithError("account.not_found");
    return found;
  }

  /** Followers or followed accounts; empty for others when the owner hides them (Mastodon's `hide_collections`). */
  async followList(viewerId: string | null, accountId: string, side: "followers" | "following", page: PageRequest): Promise<AccountPage> {
    // A group follows nobody, and its members are listed by the group's own members route, to those who may see them.
    if (isGroupAccountId(accountId)) {
      await this.groupAccounts.assertVisible(viewerId, accountId);
      return { entries: [] };
    }
    const account = await findCollectionPrivacy(this.deps.storage.db, accountId);
    if (!account) throw new KithError("account.not_found");
    const hidden = readFlag(account.hide_collections) && viewerId !== accountId;
    if (hidden || account.suspended_at !== null) return { entries: [] };
    if (viewerId !== null && viewerId !== accountId && (await pairExists(this.deps.storage.db, "blocks", accountId, viewerId)))
      return { entries: [] };
    return { entries: await followPage(this.deps.storage.db, accountId, side, page) };
  }

  async followRequests(accountId: string, page: PageRequest): Promise<AccountPage> {
    return { entries: await incomingRequestPage(this.deps.storage.db, accountId, page) };
  }

  async blocks(accountId: string, page: PageRequest): Promise<AccountPage> {
    return { entries: await blockPage(this.deps.storage.db, accountId, page) };
  }

  async mutes(accountId: string, page: PageRequest): Promise<AccountPage> {
    return { entries: await mutePage(this.deps.storage.db, accountId, page, this.deps.clock.now().toISOString()) };
  }

  /** For each account, who among those the viewer follows also follows it. */
  async familiarFollowers(viewerId: string, ids: readonly string[]): Promise<Map<string, string[]>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return new Map();
    return familiarFollowers(this.deps.storage.db, viewerId, unique);
  }

  /** Sets (or with an empty comment, removes) the viewer's private note on an account. */
  async setNote(viewerId: string, targetId: string, comment: string): Promise<RelationshipEntity> {
    if (comment.length > MAX_NOTE_LENGTH)
      throw new KithError("request.validation_failed", { message: `A note has at most ${MAX_NOTE_LENGTH} characters` });
    const db = this.deps.storage.db;
    if (!(await existingAccountIds(db, [targetId], { withSuspended: true })).has(targetId)) throw new KithError("account.not_found");
    if (targetId === viewerId) throw new KithError("relationship.self");
    await writeNote(db, viewerId, targetId, comment, this.deps.clock.now().toISOString());
    return this.relationship(viewerId, targetId);
  }
}

function relationshipOf(id: string, rows: RelationshipRows, endorsed: ReadonlySet<string>): RelationshipEntity {
  const follow = rows.following.get(id);
  const request = rows.requested.get(id);
  const options = follow ?? request;
  const mute = rows.muting.get(id);
  return {
    id,
    following: follow !== undefined,
    showing_reblogs: options ? readFlag(options.show_reblogs) : false,
    notifying: options ? readFlag(options.notify) : false,
    languages: options?.languages ? (JSON.parse(options.languages) as string[]) : null,
    followed_by: rows.followedBy.has(id),
    blocking: rows.blocking.has(id),
    blocked_by: rows.blockedBy.has(id),
    muting: mute !== undefined,
    muting_notifications: mute ? readFlag(mute.hide_notifications) : false,
    requested: request !== undefined,
    requested_by: rows.requestedBy.has(id),
    domain_blocking: rows.domainBlocking.has(id),
    endorsed: endorsed.has(id),
    note: rows.notes.get(id) ?? "",
  };
}
