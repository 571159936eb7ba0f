import { type Kysely, sql } from "kysely";
import { compiledOnce } from "../../platform/storage/compiled-once.js";
import type { Database } from "../../ports/storage-schema.js";
import { capabilitiesOf } from "../../platform/storage/storage-handles.js";
import {
  type NotificationRecord,
  deleteActNotifications,
  insertNotifications,
  newAccountsSince,
  reachedAccounts,
  reachedPolicyVerdict,
} from "../notifications/notifications-store.js";
import { readFlag } from "../../platform/storage/boolean-columns.js";
import { bumpStatusCounter } from "./statuses-store.js";

/** A favourite as it is stored: from this server (no URI) or from another (its Like's id). */
export interface NewFavourite {
  readonly id: string;
  readonly accountId: string;
  readonly statusId: string;
  readonly uri: string | null;
}

/**
 * The notification of a favourite for the liked status's author, made before the favourite is stored: the statement
 * that stores the favourite writes it too, when the favourite is new and the notification reaches its recipient.
 */
export interface FavouriteNotice {
  readonly id: string;
  /** The liked status's author, not the liker (no one is told of their own favourite). */
  readonly recipientId: string;
  readonly groupKey: string;
}

/** A favourite stored anew. */
export interface AddedFavourite {
  /**
   * The notification written with it: the notice's id when the notice reached the author by the rules of
   * `recipientsReached` (no block or mute between them, no muted conversation), checked by the same statement; null
   * when it did not, or when there was no notice.
   */
  readonly notificationId: string | null;
}

/**
 * Stores a favourite and counts it on its status, unless the account already
 * favourited the status; null when it was not stored. With a `notice`, the
 * author's notification is written with it, where it reaches them. One
 * statement where the engine writes in a `with`
 * (`StorageCapabilities.writingWith`): an incoming Like is then one round
 * trip to the database server, its notification included; up to three
 * elsewhere. Every like, from here or from another server, comes through here.
 */
export async function addFavourite(
  db: Kysely<Database>,
  favourite: NewFavourite,
  now: string,
  notice: FavouriteNotice | null = null,
): Promise<AddedFavourite | null> {
  const args: FavouriteArgs = {
    ...favourite,
    now,
    noticeId: notice?.id ?? null,
    recipientId: notice?.recipientId ?? null,
    groupKey: notice?.groupKey ?? null,
    newAccountsSince: newAccountsSince(new Date(now)),
  };
  if (capabilitiesOf(db)?.writingWith) {
    const [row] = await insertCountedFavourite(db, args);
    return row ? { notificationId: notice && readFlag(row.notified) ? notice.id : null } : null;
  }
  const [row] = await insertFavouriteRow(db, args);
  if (!row) return null;
  await bumpStatusCounter(db, favourite.statusId, "favourites_count", 1);
  if (!notice || !readFlag(row.reaches_author)) return { notificationId: null };
  await insertNotifications(db, [{ ...noticeRecord(favourite, notice, now), ...(readFlag(row.filtered) && { filtered: true }) }]);
  return { notificationId: notice.id };
}

function noticeRecord(favourite: NewFavourite, notice: FavouriteNotice, now: string): NotificationRecord {
  return {
    id: notice.id,
    recipientId: notice.recipientId,
    fromAccountId: favourite.accountId,
    type: "favourite",
    statusId: favourite.statusId,
    groupKey: notice.groupKey,
    readAt: null,
    createdAt: now,
  };
}

/**
 * Removes the account's favourite that `match` names (by its Like's id, or by its status) and takes it off its status's
 * count; the post it was of, or null when there was none. Both a favourite undone here and a Like undone by another
 * server come through here.
 */
export async function removeFavourite(
  db: Kysely<Database>,
  accountId: string,
  match: { readonly uri: string } | { readonly statusId: string },
): Promise<string | null> {
  const [row] = await db
    .deleteFrom("favourites")
    .where("account_id", "=", accountId)
    .where((eb) => ("uri" in match ? eb("uri", "=", match.uri) : eb("status_id", "=", match.statusId)))
    .returning("status_id")
    .execute();
  if (!row) return null;
  await bumpStatusCounter(db, row.status_id, "favourites_count", -1);
  await deleteActNotifications(db, accountId, "favourite", row.status_id);
  return row.status_id;
}

interface FavouriteArgs extends NewFavourite {
  readonly now: string;
  /** The notice's, or null with no notice (a statement of its own shape). */
  readonly noticeId: string | null;
  readonly recipientId: string | null;
  readonly groupKey: string | null;
  /** Accounts made after this are new to the author's notification policy. */
  readonly newAccountsSince: string;
  readonly [key: string]: string | null;
}

const favouriteInsert = (db: Kysely<Database>, args: FavouriteArgs) =>
  db
    .insertInto("favourites")
    .values({ id: args.id, account_id: args.accountId, status_id: args.statusId, uri: args.uri, created_at: args.now })
    .onConflict((oc) => oc.columns(["account_id", "status_id"]).doNothing());

/** Whether the notice reaches its recipient, the liked status's author: read by the statement that stores the favourite. */
const reachesRecipient = (db: Kysely<Database>, args: FavouriteArgs) =>
  reachedAccounts(db, {
    fromId: args.accountId,
    conversationOf: args.statusId,
    now: args.now,
    newAccountsSince: args.newAccountsSince,
  }).where("recipient.id", "=", args.recipientId ?? "");

/** Whether the author's notification policy holds the notice back (a notification request's). */
const heldBack = (db: Kysely<Database>, args: FavouriteArgs) =>
  db
    .selectFrom(
      reachedPolicyVerdict(db, {
        fromId: args.accountId,
        conversationOf: args.statusId,
        now: args.now,
        newAccountsSince: args.newAccountsSince,
      })
        .where("recipient.id", "=", args.recipientId ?? "")
        .as("verdict"),
    )
    .select(sql<boolean>`verdict.verdict = 'filter'`.as("held"));

// RETURNING tells whether the row was new on both engines; with no notice, there is nothing to check.
const insertFavouriteRow = compiledOnce((db, args: FavouriteArgs) =>
  favouriteInsert(db, args).returning((eb) => [
    args.noticeId === null ? sql<boolean>`false`.as("reaches_author") : eb.exists(reachesRecipient(db, args)).as("reaches_author"),
    args.noticeId === null ? sql<boolean>`false`.as("filtered") : heldBack(db, args).as("filtered"),
  ]),
);

/**
 * The status's row is counted only when the favourite was new (the update reads the rows the insert returned), and
 * the notice is written only when the status was counted and it reaches the author. Each part reads what the one
 * before returned: the parts of one statement see the same snapshot, not each other's rows.
 */
const insertCountedFavourite = compiledOnce((db, args: FavouriteArgs) => {
  const counted = db
    .with("added", () => favouriteInsert(db, args).returning("status_id"))
    .with("counted", (qc) =>
      qc
        .updateTable("statuses")
        .set({ favourites_count: sql<number>`favourites_count + 1` })
        .where("id", "in", (eb) => eb.selectFrom("added").select("added.status_id"))
        .returning("id"),
    );
  if (args.noticeId === null) return counted.selectFrom("counted").select(sql<boolean>`false`.as("notified"));
  return counted
    .with("notified", (qc) =>
      qc
        .insertInto("notifications")
        .columns(["id", "account_id", "from_account_id", "type", "status_id", "group_key", "read_at", "created_at", "filtered"])
        .expression((eb) =>
          eb
            .selectFrom("counted")
            .select([
              sql<string>`${args.noticeId}`.as("id"),
              sql<string>`${args.recipientId}`.as("account_id"),
              sql<string>`${args.accountId}`.as("from_account_id"),
              sql<string>`'favourite'`.as("type"),
              "counted.id as status_id",
              sql<string>`${args.groupKey}`.as("group_key"),
              sql<null>`null`.as("read_at"),
              sql<string>`${args.now}`.as("created_at"),
              heldBack(db, args).as("filtered"),
            ])
            .where((inner) => inner.exists(reachesRecipient(db, args))),
        )
        .returning("id"),
    )
    .selectFrom("counted")
    .select((eb) => eb.exists(eb.selectFrom("notified").select("notified.id")).as("notified"));
});

/** The account's favourite of the status, if it has one. */
export async function findFavourite(db: Kysely<Database>, accountId: string, statusId: string): Promise<{ id: string } | undefined> {
  return db.selectFrom("favourites").select("id").where("account_id", "=", accountId).where("status_id", "=", statusId).executeTakeFirst();
}
