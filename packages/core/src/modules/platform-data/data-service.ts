import { KithError } from "../../domain/errors.js";
import type { PageRequest } from "../../domain/page.js";
import type { Grant } from "../../domain/permissions.js";
import type { KithServices } from "../core-services.js";
import type { GroupAppsService } from "../groups/index.js";
import type { ServiceDeps } from "../service-deps.js";
import { contentText, distinctTags } from "./data-content.js";
import { dataErrors } from "./data-errors.js";
import { type DataOwner, managedOwners, managesOwner, ownerOf } from "./data-owners.js";
import {
  type DataEntryRow,
  deleteEntriesOf,
  deleteEntry,
  entriesPage,
  findEntry,
  insertEntry,
  lockedEntry,
  updateEntry,
} from "./data-store.js";

/** The group application that turns a group's data on: a group's entries are served only while it is installed. */
export const DATA_APP = "data";

/** An entry as the API answers it. */
export interface DataEntryEntity {
  readonly id: string;
  readonly ownerId: string;
  readonly type: string | null;
  readonly tags: readonly string[];
  readonly content: unknown;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** Who asks: the signed-in account and the grants of its roles. */
export interface DataCaller {
  readonly accountId: string;
  readonly grants: readonly Grant[];
}

export interface DataFilter {
  readonly owner?: string;
  readonly type?: string;
  readonly tags?: readonly string[];
}

export interface NewDataEntry {
  /** The caller's own user when absent. */
  readonly ownerId?: string;
  readonly type?: string;
  readonly tags?: readonly string[];
  readonly content: unknown;
}

/** What a PUT changes: a field left out keeps its value; `type: null` clears it. */
export interface DataEntryChanges {
  /** When given, it must be the entry's owner. */
  readonly ownerId?: string;
  readonly type?: string | null;
  readonly tags?: readonly string[];
  readonly content?: unknown;
}

function entityOf(row: DataEntryRow): DataEntryEntity {
  return {
    id: row.id,
    ownerId: row.owner_id,
    type: row.type,
    tags: JSON.parse(row.tags) as string[],
    content: JSON.parse(row.content) as unknown,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function parseOwner(id: string, field: string): DataOwner {
  const owner = ownerOf(id);
  if (!owner) {
    throw new KithError(dataErrors["data.owner_unknown"], {
      details: [{ field, message: "a user id (us_), a group id (gr_) or platform" }],
    });
  }
  return owner;
}

/**
 * Platform data (the spec's "Platform data"): JSON entries owned by a user,
 * a group or the platform, typed and tagged. Every operation needs
 * Data.Manage for the owner (`managesOwner`); a group's entries are served
 * while the group has the `data` application installed. An entry's owner
 * never changes, and a deleted entry is gone with its tags.
 */
export class DataService {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "clock" | "ids">,
    private readonly core: Pick<KithServices, "accounts">,
    private readonly apps: Pick<GroupAppsService, "require">,
  ) {}

  /** Refuses an owner the caller may not manage (403), one that does not exist (404), a group without the application (404). */
  async #checkOwner(caller: DataCaller, owner: DataOwner): Promise<void> {
    if (!managesOwner(caller.accountId, caller.grants, owner)) throw new KithError("auth.forbidden");
    if (owner.kind === "user" && owner.id !== caller.accountId) await this.core.accounts.findById(owner.id);
    // The caller's grant decided; whether it may see a secret group does not matter here.
    if (owner.kind === "group") await this.apps.require(owner.id, DATA_APP, undefined);
  }

  async #hasApp(groupId: string): Promise<boolean> {
    try {
      await this.apps.require(groupId, DATA_APP, undefined);
      return true;
    } catch (error) {
      if (error instanceof KithError) return false;
      throw error;
    }
  }

  /**
   * A page of entries: of the `owner` (Data.Manage for it, else 403), or of
   * every owner the caller manages; of the `type`; with every one of `tags`.
   */
  async list(caller: DataCaller, filter: DataFilter, page: PageRequest): Promise<DataEntryEntity[]> {
    let owners: string[] | null;
    if (filter.owner !== undefined) {
      const owner = parseOwner(filter.owner, "owner");
      await this.#checkOwner(caller, owner);
      owners = [owner.id];
    } else {
      const managed = managedOwners(caller.accountId, caller.grants);
      owners = managed === null ? null : await this.#withApp(managed);
    }
    const rows = await entriesPage(
      this.deps.storage.db,
      { owners, ...(filter.type !== undefined && { type: filter.type }), tags: distinctTags(filter.tags ?? []) },
      page,
    );
    return rows.map(entityOf);
  }

  /** The owners less the groups that do not have the application. */
  async #withApp(owners: readonly string[]): Promise<string[]> {
    const kept: string[] = [];
    for (const id of owners) if (ownerOf(id)?.kind !== "group" || (await this.#hasApp(id))) kept.push(id);
    return kept;
  }

  async create(caller: DataCaller, input: NewDataEntry): Promise<DataEntryEntity> {
    const owner = parseOwner(input.ownerId ?? caller.accountId, "ownerId");
    await this.#checkOwner(caller, owner);
    const tags = distinctTags(input.tags ?? []);
    const now = this.deps.clock.now().toISOString();
    const row: DataEntryRow = {
      id: this.deps.ids.next("data"),
      owner_id: owner.id,
      type: input.type ?? null,
      tags: JSON.stringify(tags),
      content: contentText(input.content),
      created_at: now,
      updated_at: now,
    };
    await this.deps.storage.transaction((trx) => insertEntry(trx, row, tags));
    return entityOf(row);
  }

  /** The entry, if the caller may manage its owner: 404 when there is none, 403 when it may not. */
  async #managed(caller: DataCaller, id: string): Promise<DataEntryRow> {
    const row = await findEntry(this.deps.storage.db, id);
    if (!row) throw new KithError(dataErrors["data.not_found"]);
    await this.#checkOwner(caller, parseOwner(row.owner_id, "ownerId"));
    return row;
  }

  async update(caller: DataCaller, id: string, changes: DataEntryChanges): Promise<DataEntryEntity> {
    const before = await this.#managed(caller, id);
    if (changes.ownerId !== undefined && changes.ownerId !== before.owner_id) throw new KithError(dataErrors["data.owner_immutable"]);
    const beforeTags = JSON.parse(before.tags) as string[];
    const tags = changes.tags === undefined ? beforeTags : distinctTags(changes.tags);
    const after = {
      type: changes.type === undefined ? before.type : changes.type,
      tags: JSON.stringify(tags),
      content: changes.content === undefined ? before.content : contentText(changes.content),
      updated_at: this.deps.clock.now().toISOString(),
    };
    await this.deps.storage.transaction(async (trx) => {
      // Read again in the transaction: a change made in between would otherwise leave tag rows of tags it no longer has.
      const current = await lockedEntry(trx, id);
      if (!current) throw new KithError(dataErrors["data.not_found"]);
      await updateEntry(trx, current, JSON.parse(current.tags) as string[], after, tags);
    });
    return entityOf({ ...before, ...after });
  }

  /** Deletes the entry for good, with its type and tags. */
  async delete(caller: DataCaller, id: string): Promise<void> {
    await this.#managed(caller, id);
    await this.deps.storage.transaction(async (trx) => {
      const current = await lockedEntry(trx, id);
      if (current) await deleteEntry(trx, current, JSON.parse(current.tags) as string[]);
    });
  }

  /** Deletes every entry of an owner that goes (an account deleted); how many. */
  forgetOwner(ownerId: string): Promise<number> {
    return this.deps.storage.transaction((trx) => deleteEntriesOf(trx, ownerId));
  }
}
