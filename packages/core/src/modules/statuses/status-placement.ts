import type { Kysely } from "kysely";
import type { Database, Visibility } from "../../ports/storage-schema.js";

/** Where a new local status is asked to go, and what it answers. */
export interface PlacementRequest {
  readonly accountId: string;
  /** The group the author names (Kith's `group_id`), or null. */
  readonly groupId: string | null;
  /** The group's channel the author names (Kith's `channel_id`), or null. */
  readonly channelId: string | null;
  /** The post it replies to, once found visible to the author, or null. */
  readonly parentId: string | null;
}

/** A status's place once allowed: the visibility it must have, and what is written with it. */
export interface Placement {
  /** Overrides the author's visibility (a secret group's statuses are hidden from everyone outside it). */
  readonly visibility?: Visibility;
  /** The closed audience a `direct` status is addressed to (`status_audiences`): its members see it. */
  readonly audienceId?: string;
  /** Runs in the status's transaction, after its mentions are known; throwing refuses the status. */
  record(trx: Kysely<Database>, statusId: string, mentionIds: readonly string[]): Promise<void>;
}

/**
 * Decides where a new status belongs beyond its author's timeline (a group, set
 * by the groups module): null for an ordinary status, a refusal thrown as a
 * `KithError`. The statuses service knows no group; it asks this.
 */
export interface StatusPlacement {
  place(request: PlacementRequest): Promise<Placement | null>;
  /** Runs in an edit's transaction, once the edited status's mentions are known; throwing refuses the edit. */
  edited?(trx: Kysely<Database>, statusId: string, mentionIds: readonly string[]): Promise<void>;
}

/** Who is in a closed audience: kept by the module that owns it, in its own transactions. */
export interface AudienceMembership {
  add(db: Kysely<Database>, audienceId: string, accountId: string): Promise<void>;
  remove(db: Kysely<Database>, audienceId: string, accountId: string): Promise<void>;
  /** Empties the audience. */
  clear(db: Kysely<Database>, audienceId: string): Promise<void>;
}
