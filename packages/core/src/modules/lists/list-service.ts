import { KithError } from "../../domain/errors.js";
import {
  type ListRecord,
  type RepliesPolicy,
  addListMembers,
  deleteList,
  existingAccounts,
  findList,
  followedOrRequested,
  insertList,
  listMemberIds,
  listsOfOwner,
  listsOfOwnerHolding,
  removeFromOwnersLists,
  removeListMembers,
  updateList,
} from "./lists-store.js";
import type { ServiceDeps } from "../service-deps.js";

export type { ListRecord, RepliesPolicy };

export interface ListInput {
  readonly title?: string;
  readonly repliesPolicy?: RepliesPolicy;
  readonly exclusive?: boolean;
}

const MAX_TITLE = 100;

function checkTitle(title: string): string {
  const trimmed = title.trim();
  if (trimmed.length === 0 || trimmed.length > MAX_TITLE) {
    throw new KithError("list.invalid", { details: [{ field: "title", message: `A title of 1 to ${MAX_TITLE} characters is required` }] });
  }
  return trimmed;
}

/** Lists of accounts a user follows, each with its own timeline (Mastodon's lists). */
export class ListService {
  constructor(private readonly deps: Pick<ServiceDeps, "storage" | "clock" | "ids">) {}

  list(ownerId: string): Promise<ListRecord[]> {
    return listsOfOwner(this.deps.storage.db, ownerId);
  }

  /** The caller's list; 404 for a list of someone else, as if it did not exist. */
  async get(ownerId: string, listId: string): Promise<ListRecord> {
    const list = await findList(this.deps.storage.db, listId);
    if (!list || list.ownerId !== ownerId) throw new KithError("list.not_found");
    return list;
  }

  async create(ownerId: string, input: ListInput): Promise<ListRecord> {
    const list: ListRecord = {
      id: this.deps.ids.next("list"),
      ownerId,
      title: checkTitle(input.title ?? ""),
      repliesPolicy: input.repliesPolicy ?? "list",
      exclusive: input.exclusive ?? false,
    };
    await insertList(this.deps.storage.db, list, this.deps.clock.now().toISOString());
    return list;
  }

  async update(ownerId: string, listId: string, input: ListInput): Promise<ListRecord> {
    const list = await this.get(ownerId, listId);
    const next: ListRecord = {
      ...list,
      ...(input.title !== undefined && { title: checkTitle(input.title) }),
      ...(input.repliesPolicy !== undefined && { repliesPolicy: input.repliesPolicy }),
      ...(input.exclusive !== undefined && { exclusive: input.exclusive }),
    };
    await updateList(this.deps.storage.db, next, this.deps.clock.now().toISOString());
    return next;
  }

  async remove(ownerId: string, listId: string): Promise<void> {
    await this.get(ownerId, listId);
    await this.deps.storage.transaction((trx) => deleteList(trx, listId));
  }

  /** Member ids, newest accounts first; `limit` null for all of them (Mastodon's `limit=0`). */
  async members(ownerId: string, listId: string, page: { limit: number | null; maxId?: string; sinceId?: string }): Promise<string[]> {
    await this.get(ownerId, listId);
    return listMemberIds(this.deps.storage.db, listId, page);
  }

  /** Adds accounts the owner follows (or asked to follow); 404 for an unknown account, 422 for one not followed. */
  async addMembers(ownerId: string, listId: string, accountIds: readonly string[]): Promise<void> {
    await this.get(ownerId, listId);
    const db = this.deps.storage.db;
    const unique = [...new Set(accountIds)];
    const existing = await existingAccounts(db, unique);
    if (unique.some((id) => !existing.has(id))) throw new KithError("account.not_found");
    const followed = await followedOrRequested(db, ownerId, unique);
    const notFollowed = unique.filter((id) => !followed.has(id));
    if (notFollowed.length > 0) {
      throw new KithError("list.account_not_followed", {
        details: notFollowed.map((id) => ({ field: "account_ids", message: `Account ${id} is not followed` })),
      });
    }
    await addListMembers(db, listId, unique, this.deps.clock.now().toISOString());
  }

  async removeMembers(ownerId: string, listId: string, accountIds: readonly string[]): Promise<void> {
    await this.get(ownerId, listId);
    await removeListMembers(this.deps.storage.db, listId, [...new Set(accountIds)]);
  }

  /** The owner's lists holding an account (`GET /api/v1/accounts/:id/lists`). */
  async holding(ownerId: string, accountId: string): Promise<ListRecord[]> {
    const existing = await existingAccounts(this.deps.storage.db, [accountId]);
    if (!existing.has(accountId)) throw new KithError("account.not_found");
    return listsOfOwnerHolding(this.deps.storage.db, ownerId, accountId);
  }

  /** After an unfollow or a block, the account leaves the owner's lists, as in Mastodon. */
  async dropFromOwnersLists(ownerId: string, accountId: string): Promise<void> {
    await removeFromOwnersLists(this.deps.storage.db, ownerId, accountId);
  }
}
