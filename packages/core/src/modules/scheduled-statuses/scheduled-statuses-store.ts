import type { Kysely } from "kysely";
import type { PageRequest } from "../../domain/page.js";
import type { Storage } from "../../ports/storage.js";
import type { Database } from "../../ports/storage-schema.js";
import { fetchIdPage } from "../../platform/storage/paginate-by-id.js";

export interface ScheduledStatusRow {
  readonly id: string;
  readonly account_id: string;
  readonly scheduled_at: string;
  readonly params: string;
  readonly idempotency_key: string | null;
  readonly created_at: string;
}

/** The module's table, as Kysely sees it. */
type ScheduledStatusTables = { scheduled_statuses: ScheduledStatusRow };

/** The scheduled-statuses module's SQL, and the only place it has any. */
export class ScheduledStatusesStore {
  readonly #storage: Storage;

  constructor(storage: Storage) {
    this.#storage = storage;
  }

  /** `db` (a transaction's handle) or the storage's, knowing the module's table. */
  #db(db: Kysely<Database> = this.#storage.db): Kysely<ScheduledStatusTables> {
    // The core's schema type knows the core's tables; the module adds its own.
    return db.withTables<ScheduledStatusTables>() as unknown as Kysely<ScheduledStatusTables>;
  }

  /** Runs `work` in one transaction, with the handle the queue writes a job in too. */
  transaction<T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
    return this.#storage.transaction(work);
  }

  /** Inserts one; false when one of the same account and idempotency key is there already. */
  async insert(db: Kysely<Database>, row: ScheduledStatusRow): Promise<boolean> {
    const result = await this.#db(db)
      .insertInto("scheduled_statuses")
      .values(row)
      .onConflict((oc) => oc.columns(["account_id", "idempotency_key"]).where("idempotency_key", "is not", null).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  /** The one made with this key since `since`, if any. */
  async findByIdempotencyKey(accountId: string, key: string, since: string): Promise<ScheduledStatusRow | undefined> {
    return this.#db()
      .selectFrom("scheduled_statuses")
      .selectAll()
      .where("account_id", "=", accountId)
      .where("idempotency_key", "=", key)
      .where("created_at", ">=", since)
      .executeTakeFirst();
  }

  /** Frees a key older than the window, so that it makes a new one. */
  async forgetIdempotencyKey(accountId: string, key: string): Promise<void> {
    await this.#db()
      .updateTable("scheduled_statuses")
      .set({ idempotency_key: null })
      .where("account_id", "=", accountId)
      .where("idempotency_key", "=", key)
      .execute();
  }

  async find(id: string): Promise<ScheduledStatusRow | undefined> {
    return this.#db().selectFrom("scheduled_statuses").selectAll().where("id", "=", id).executeTakeFirst();
  }

  async page(accountId: string, page: PageRequest): Promise<ScheduledStatusRow[]> {
    const query = this.#db().selectFrom("scheduled_statuses").selectAll().where("account_id", "=", accountId);
    return fetchIdPage(query, "id", page);
  }

  /** How many the account has waiting, and how many of them fall in [`dayStart`, `dayEnd`); `except` left out of both. */
  async counts(accountId: string, dayStart: string, dayEnd: string, except: string | null): Promise<{ total: number; day: number }> {
    let query = this.#db()
      .selectFrom("scheduled_statuses")
      .select((eb) => [
        eb.fn.countAll<number | string>().as("total"),
        eb.fn
          .sum<number | string | null>(
            eb
              .case()
              .when(eb.and([eb("scheduled_at", ">=", dayStart), eb("scheduled_at", "<", dayEnd)]))
              .then(1)
              .else(0)
              .end(),
          )
          .as("day"),
      ])
      .where("account_id", "=", accountId);
    if (except !== null) query = query.where("id", "<>", except);
    const row = await query.executeTakeFirst();
    return { total: Number(row?.total ?? 0), day: Number(row?.day ?? 0) };
  }

  async reschedule(db: Kysely<Database>, id: string, accountId: string, scheduledAt: string): Promise<boolean> {
    const result = await this.#db(db)
      .updateTable("scheduled_statuses")
      .set({ scheduled_at: scheduledAt })
      .where("id", "=", id)
      .where("account_id", "=", accountId)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Deletes one; with `scheduledAt`, only while it is still due then (a reschedule wins over the job of the old time). */
  async delete(id: string, accountId: string | null, scheduledAt: string | null = null): Promise<boolean> {
    let query = this.#db().deleteFrom("scheduled_statuses").where("id", "=", id);
    if (accountId !== null) query = query.where("account_id", "=", accountId);
    if (scheduledAt !== null) query = query.where("scheduled_at", "=", scheduledAt);
    const result = await query.executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Every waiting one after `afterId`, in id order, `limit` at a time: what a start enqueues again. */
  async batchAfter(afterId: string, limit: number): Promise<ScheduledStatusRow[]> {
    return this.#db().selectFrom("scheduled_statuses").selectAll().where("id", ">", afterId).orderBy("id", "asc").limit(limit).execute();
  }
}
