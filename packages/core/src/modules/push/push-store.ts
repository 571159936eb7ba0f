import type { Kysely } from "kysely";
import type { Database } from "../../ports/storage-schema.js";
import type { Storage } from "../../ports/storage.js";

export const PUSH_POLICIES = ["all", "followed", "follower", "none"] as const;
export type PushPolicy = (typeof PUSH_POLICIES)[number];

export interface PushSubscriptionRow {
  readonly id: string;
  readonly account_id: string;
  readonly session_id: string;
  readonly endpoint: string;
  readonly key_p256dh: string;
  readonly key_auth: string;
  readonly alerts: string;
  readonly policy: string;
  readonly access_token: string;
  readonly created_at: string;
  readonly updated_at: string;
}

interface VapidKeyRow {
  readonly id: string;
  readonly public_key: string;
  readonly private_key: string;
  readonly created_at: string;
}

/** The module's tables, as Kysely sees them. */
type PushTables = { push_subscriptions: PushSubscriptionRow; push_vapid_keys: VapidKeyRow };

export interface VapidKeys {
  readonly publicKey: string;
  readonly privateKey: string;
}

const VAPID_ROW = "instance";

/** The push module's SQL, and the only place it has any. */
export class PushStore {
  readonly #db: Kysely<Database & PushTables>;

  constructor(storage: Storage) {
    // The core's schema type knows the core's tables; the module adds its own.
    this.#db = storage.db.withTables<PushTables>() as unknown as Kysely<Database & PushTables>;
  }

  async vapidKeys(): Promise<VapidKeys | null> {
    const row = await this.#db.selectFrom("push_vapid_keys").selectAll().where("id", "=", VAPID_ROW).executeTakeFirst();
    return row ? { publicKey: row.public_key, privateKey: row.private_key } : null;
  }

  /** Keeps `keys` unless a pair is there already (another process made one first); answers the pair kept. */
  async keepVapidKeys(keys: VapidKeys, now: string): Promise<VapidKeys> {
    await this.#db
      .insertInto("push_vapid_keys")
      .values({ id: VAPID_ROW, public_key: keys.publicKey, private_key: keys.privateKey, created_at: now })
      .onConflict((oc) => oc.column("id").doNothing())
      .execute();
    return (await this.vapidKeys()) ?? keys;
  }

  /** Writes the token's subscription, replacing the one it had. */
  async put(row: PushSubscriptionRow): Promise<void> {
    await this.#db
      .insertInto("push_subscriptions")
      .values(row)
      .onConflict((oc) =>
        oc.column("session_id").doUpdateSet({
          id: row.id,
          endpoint: row.endpoint,
          key_p256dh: row.key_p256dh,
          key_auth: row.key_auth,
          alerts: row.alerts,
          policy: row.policy,
          access_token: row.access_token,
          created_at: row.created_at,
          updated_at: row.updated_at,
        }),
      )
      .execute();
  }

  ofSession(sessionId: string): Promise<PushSubscriptionRow | undefined> {
    return this.#db.selectFrom("push_subscriptions").selectAll().where("session_id", "=", sessionId).executeTakeFirst();
  }

  async update(sessionId: string, change: Pick<PushSubscriptionRow, "alerts" | "policy" | "updated_at">): Promise<void> {
    await this.#db.updateTable("push_subscriptions").set(change).where("session_id", "=", sessionId).execute();
  }

  async deleteOfSession(sessionId: string): Promise<void> {
    await this.#db.deleteFrom("push_subscriptions").where("session_id", "=", sessionId).execute();
  }

  async delete(id: string): Promise<void> {
    await this.#db.deleteFrom("push_subscriptions").where("id", "=", id).execute();
  }

  async anySubscription(): Promise<boolean> {
    const row = await this.#db.selectFrom("push_subscriptions").select("id").limit(1).executeTakeFirst();
    return row !== undefined;
  }

  /** The ids of an account's subscriptions whose tokens still hold. */
  async idsOfAccount(accountId: string, now: string): Promise<string[]> {
    const rows = await this.#db
      .selectFrom("push_subscriptions")
      .innerJoin("sessions", "sessions.id", "push_subscriptions.session_id")
      .select("push_subscriptions.id")
      .where("push_subscriptions.account_id", "=", accountId)
      .where("sessions.revoked_at", "is", null)
      .where((eb) => eb.or([eb("sessions.expires_at", "is", null), eb("sessions.expires_at", ">", now)]))
      .execute();
    return rows.map((row) => row.id);
  }

  /** A subscription whose token still holds, with whether its account follows `otherId` and is followed by it. */
  async forDelivery(
    id: string,
    otherId: string,
    now: string,
  ): Promise<(PushSubscriptionRow & { readonly follows_other: boolean; readonly followed_by_other: boolean }) | undefined> {
    const row = await this.#db
      .selectFrom("push_subscriptions")
      .innerJoin("sessions", "sessions.id", "push_subscriptions.session_id")
      .selectAll("push_subscriptions")
      .select((eb) => [
        eb
          .exists(
            eb
              .selectFrom("follows")
              .select("follows.account_id")
              .whereRef("follows.account_id", "=", "push_subscriptions.account_id")
              .where("follows.target_account_id", "=", otherId),
          )
          .as("follows_other"),
        eb
          .exists(
            eb
              .selectFrom("follows")
              .select("follows.account_id")
              .where("follows.account_id", "=", otherId)
              .whereRef("follows.target_account_id", "=", "push_subscriptions.account_id"),
          )
          .as("followed_by_other"),
      ])
      .where("push_subscriptions.id", "=", id)
      .where("sessions.revoked_at", "is", null)
      .where((eb) => eb.or([eb("sessions.expires_at", "is", null), eb("sessions.expires_at", ">", now)]))
      .executeTakeFirst();
    if (!row) return undefined;
    // SQLite answers EXISTS as 0/1.
    return { ...row, follows_other: Boolean(row.follows_other), followed_by_other: Boolean(row.followed_by_other) };
  }
}
