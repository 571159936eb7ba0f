import type { Kysely } from "kysely";
import type { Storage } from "../../ports/storage.js";

export type RelayKind = "mastodon" | "litepub";
export type RelayState = "idle" | "pending" | "accepted" | "rejected";

export interface RelayRow {
  readonly id: string;
  readonly inbox_url: string;
  readonly kind: RelayKind;
  readonly actor_uri: string | null;
  readonly state: RelayState;
  readonly follow_activity_id: string | null;
  readonly created_at: string;
  readonly updated_at: string;
}

/** The module's table, as Kysely sees it. */
type RelayTables = { relays: RelayRow };

/** What a change of a relay's subscription writes. */
export type RelayChange = Partial<Pick<RelayRow, "state" | "follow_activity_id" | "actor_uri">> & { readonly updated_at: string };

/** The relays module's SQL, and the only place it has any. */
export class RelaysStore {
  readonly #db: Kysely<RelayTables>;

  constructor(storage: Storage) {
    // The core's schema type knows the core's tables; the module adds its own.
    this.#db = storage.db.withTables<RelayTables>() as unknown as Kysely<RelayTables>;
  }

  /** Inserts a relay; false when one with its inbox is there already. */
  async insert(row: RelayRow): Promise<boolean> {
    const result = await this.#db
      .insertInto("relays")
      .values(row)
      .onConflict((oc) => oc.column("inbox_url").doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  async find(id: string): Promise<RelayRow | undefined> {
    return this.#db.selectFrom("relays").selectAll().where("id", "=", id).executeTakeFirst();
  }

  async findByFollow(followActivityId: string): Promise<RelayRow | undefined> {
    return this.#db.selectFrom("relays").selectAll().where("follow_activity_id", "=", followActivityId).executeTakeFirst();
  }

  /** Every relay, oldest first (a server has a handful). */
  async list(): Promise<RelayRow[]> {
    return this.#db.selectFrom("relays").selectAll().orderBy("id", "asc").execute();
  }

  /** The inboxes of the relays in `state`. */
  /** The inboxes and actors of the relays in a state. */
  async addressesIn(state: RelayState): Promise<{ inboxes: string[]; actors: string[] }> {
    const rows = await this.#db.selectFrom("relays").select(["inbox_url", "actor_uri"]).where("state", "=", state).execute();
    return { inboxes: rows.map((row) => row.inbox_url), actors: rows.flatMap((row) => (row.actor_uri ? [row.actor_uri] : [])) };
  }

  /**
   * Changes a relay if it is still in one of `from` (the state its change was
   * decided from): of two requests racing, one changes it. False otherwise.
   */
  async change(id: string, from: readonly RelayState[], change: RelayChange): Promise<boolean> {
    const result = await this.#db
      .updateTable("relays")
      .set(change)
      .where("id", "=", id)
      .where("state", "in", [...from])
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Deletes a relay; false when it was gone already. */
  async delete(id: string): Promise<boolean> {
    const result = await this.#db.deleteFrom("relays").where("id", "=", id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
