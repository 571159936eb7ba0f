import { type Kysely, sql } from "kysely";
import type { PageRequest } from "../../domain/page.js";
import type { Storage } from "../../ports/storage.js";
import type { Database } from "../../ports/storage-schema.js";
import { fetchIdPage } from "../../platform/storage/paginate-by-id.js";

export interface EventRow {
  readonly id: string;
  readonly organizer_id: string;
  readonly group_id: string | null;
  readonly title: string;
  readonly description: string;
  readonly starts_at: string;
  readonly ends_at: string | null;
  readonly time_zone: string;
  readonly all_day: boolean | number;
  readonly location_name: string | null;
  readonly location_address: string | null;
  readonly latitude: number | null;
  readonly longitude: number | null;
  readonly online_url: string | null;
  readonly privacy: string;
  readonly cancelled_at: string | null;
  readonly deleted_at: string | null;
  readonly version: number;
  readonly created_at: string;
  readonly updated_at: string;
}

export interface ParticipantRow {
  readonly id: string;
  readonly event_id: string;
  readonly account_id: string;
  readonly status: string;
  readonly created_at: string;
  readonly updated_at: string;
}

export interface EventTranslationRow {
  readonly event_id: string;
  readonly language: string;
  readonly version: number;
  readonly title: string;
  readonly description: string;
  readonly detected_language: string | null;
  readonly provider: string;
  readonly created_at: string;
}

export interface CalendarSettingsRow {
  readonly owner_id: string;
  readonly public_enabled: boolean | number;
  readonly private_id: string;
  readonly detail_level: string;
  readonly export_scope: string;
  readonly updated_at: string;
}

type EventTables = {
  events: EventRow;
  event_participants: ParticipantRow;
  event_translations: EventTranslationRow;
  event_calendar_settings: CalendarSettingsRow;
  event_notifications: { notification_id: string; event_id: string };
};

type EventsDb = Kysely<Database & EventTables>;

/** The counts of an event's participations by status. */
export type StatusCounts = ReadonlyMap<string, number>;

/** What a list of events is narrowed by; each present field is one more condition. */
export interface EventFilter {
  readonly organizerId?: string;
  /** Events of the group's calendar. */
  readonly groupId?: string;
  /** Events of no group (a user's own calendar). */
  readonly noGroup?: boolean;
  /** Only public events, or public ones plus those the viewer organizes or takes part in. */
  readonly viewerId: string | null;
  readonly includeDeleted?: boolean;
  readonly query?: string;
  /** Events overlapping [from, to). */
  readonly from?: string;
  readonly to?: string;
  readonly box?: { readonly minLat: number; readonly maxLat: number; readonly minLon: number; readonly maxLon: number };
  /** Events whose organizer is one of these, or whose group is. */
  readonly organizersOrGroups?: readonly string[];
}

/** What `/events/my` narrows the caller's events by. */
export interface MyEventsFilter {
  readonly accountId: string;
  readonly now: string;
  readonly past: boolean;
  readonly organizedOnly: boolean;
  readonly pendingOnly: boolean;
}

/** The events module's SQL, and the only place it has any. */
export class EventsStore {
  readonly #storage: Storage;

  constructor(storage: Storage) {
    this.#storage = storage;
  }

  #db(db: Kysely<Database> = this.#storage.db): EventsDb {
    // The core's schema type knows the core's tables; the module adds its own.
    return db.withTables<EventTables>();
  }

  transaction<T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
    return this.#storage.transaction(work);
  }

  async insert(row: EventRow): Promise<void> {
    await this.#db().insertInto("events").values(row).execute();
  }

  async find(id: string): Promise<EventRow | undefined> {
    return this.#db().selectFrom("events").selectAll().where("id", "=", id).executeTakeFirst();
  }

  async update(id: string, changes: Partial<Omit<EventRow, "id">>, db?: Kysely<Database>): Promise<void> {
    await this.#db(db).updateTable("events").set(changes).where("id", "=", id).execute();
  }

  /** One page of events, newest first, as the filter narrows them. */
  async page(filter: EventFilter, page: PageRequest): Promise<EventRow[]> {
    let query = this.#db().selectFrom("events").selectAll();
    if (!filter.includeDeleted) query = query.where("deleted_at", "is", null);
    if (filter.organizerId !== undefined) query = query.where("organizer_id", "=", filter.organizerId);
    if (filter.groupId !== undefined) query = query.where("group_id", "=", filter.groupId);
    if (filter.noGroup) query = query.where("group_id", "is", null);
    const viewer = filter.viewerId;
    if (viewer === null) query = query.where("privacy", "=", "public");
    else {
      const takesPart = this.#db()
        .selectFrom("event_participants")
        .select("event_participants.event_id")
        .where("event_participants.account_id", "=", viewer);
      query = query.where((eb) => eb.or([eb("privacy", "=", "public"), eb("organizer_id", "=", viewer), eb("id", "in", takesPart)]));
    }
    if (filter.query) {
      const like = `%${filter.query.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      query = query.where((eb) =>
        eb.or([
          eb(sql`lower(title)`, "like", sql`${like} escape '\\'`),
          eb(sql`lower(description)`, "like", sql`${like} escape '\\'`),
          eb(sql`lower(coalesce(location_name, ''))`, "like", sql`${like} escape '\\'`),
        ]),
      );
    }
    if (filter.to !== undefined) query = query.where("starts_at", "<", filter.to);
    if (filter.from !== undefined) {
      const from = filter.from;
      query = query.where((eb) => eb(sql`coalesce(ends_at, starts_at)`, ">=", from));
    }
    if (filter.box) {
      query = query
        .where("latitude", ">=", filter.box.minLat)
        .where("latitude", "<=", filter.box.maxLat)
        .where("longitude", ">=", filter.box.minLon)
        .where("longitude", "<=", filter.box.maxLon);
    }
    if (filter.organizersOrGroups) {
      const ids = filter.organizersOrGroups;
      if (ids.length === 0) return [];
      query = query.where((eb) => eb.or([eb("organizer_id", "in", ids), eb("group_id", "in", ids)]));
    }
    return fetchIdPage(query, "id", page);
  }

  /** The caller's events (organized, or taken part in and not declined), narrowed as `/events/my` asks. */
  async pageMine(filter: MyEventsFilter, page: PageRequest): Promise<EventRow[]> {
    const mine = this.#db()
      .selectFrom("event_participants")
      .select("event_id")
      .where("account_id", "=", filter.accountId)
      .where("status", filter.pendingOnly ? "=" : "<>", filter.pendingOnly ? "pending" : "rejected");
    let query = this.#db().selectFrom("events").selectAll().where("deleted_at", "is", null);
    if (filter.organizedOnly) query = query.where("organizer_id", "=", filter.accountId);
    else if (filter.pendingOnly) query = query.where("id", "in", mine);
    else query = query.where((eb) => eb.or([eb("organizer_id", "=", filter.accountId), eb("id", "in", mine)]));
    if (filter.organizedOnly && filter.pendingOnly) query = query.where("id", "in", mine);
    const now = filter.now;
    query = filter.past
      ? query.where((eb) => eb(sql`coalesce(ends_at, starts_at)`, "<", now))
      : query.where((eb) => eb(sql`coalesce(ends_at, starts_at)`, ">=", now));
    return fetchIdPage(query, "id", page);
  }

  /** The events a calendar exports: organized by the owner or in the group's calendar, and with `attended` those taken part in. */
  async calendarEvents(ownerId: string, isGroup: boolean, withAttended: boolean, publicOnly: boolean): Promise<EventRow[]> {
    let query = this.#db().selectFrom("events").selectAll().where("deleted_at", "is", null);
    if (publicOnly) query = query.where("privacy", "=", "public");
    if (isGroup) query = query.where("group_id", "=", ownerId);
    else if (withAttended) {
      const attended = this.#db()
        .selectFrom("event_participants")
        .select("event_id")
        .where("account_id", "=", ownerId)
        .where("status", "in", ["attending", "accepted", "tentative"]);
      query = query.where((eb) => eb.or([eb("organizer_id", "=", ownerId), eb("id", "in", attended)]));
    } else query = query.where("organizer_id", "=", ownerId);
    return query.orderBy("starts_at").orderBy("id").limit(5_000).execute();
  }

  async participant(eventId: string, accountId: string): Promise<ParticipantRow | undefined> {
    return this.#db()
      .selectFrom("event_participants")
      .selectAll()
      .where("event_id", "=", eventId)
      .where("account_id", "=", accountId)
      .executeTakeFirst();
  }

  /** The viewer's status on each of the events. */
  async statusesOf(eventIds: readonly string[], accountId: string): Promise<Map<string, string>> {
    if (eventIds.length === 0) return new Map();
    const rows = await this.#db()
      .selectFrom("event_participants")
      .select(["event_id", "status"])
      .where("event_id", "in", eventIds)
      .where("account_id", "=", accountId)
      .execute();
    return new Map(rows.map((row) => [row.event_id, row.status]));
  }

  /** Sets an account's standing on an event: a row for a status, none for null. */
  async setStatus(row: ParticipantRow | null, eventId: string, accountId: string, db?: Kysely<Database>): Promise<void> {
    if (row === null) {
      await this.#db(db).deleteFrom("event_participants").where("event_id", "=", eventId).where("account_id", "=", accountId).execute();
      return;
    }
    await this.#db(db)
      .insertInto("event_participants")
      .values(row)
      .onConflict((oc) => oc.columns(["event_id", "account_id"]).doUpdateSet({ status: row.status, updated_at: row.updated_at }))
      .execute();
  }

  /** Each event's participations counted by status. */
  async counts(eventIds: readonly string[]): Promise<Map<string, Map<string, number>>> {
    const counts = new Map<string, Map<string, number>>(eventIds.map((id) => [id, new Map()]));
    if (eventIds.length === 0) return counts;
    const rows = await this.#db()
      .selectFrom("event_participants")
      .select(["event_id", "status", (eb) => eb.fn.countAll<string | number>().as("n")])
      .where("event_id", "in", eventIds)
      .groupBy(["event_id", "status"])
      .execute();
    for (const row of rows) counts.get(row.event_id)?.set(row.status, Number(row.n));
    return counts;
  }

  async participantsPage(eventId: string, statuses: readonly string[] | null, page: PageRequest): Promise<ParticipantRow[]> {
    let query = this.#db().selectFrom("event_participants").selectAll().where("event_id", "=", eventId);
    if (statuses) query = query.where("status", "in", statuses);
    return fetchIdPage(query, "id", page);
  }

  /** Attendees of the event whom the viewer follows. */
  async followedAttendeesPage(eventId: string, viewerId: string, page: PageRequest): Promise<ParticipantRow[]> {
    const followed = this.#db().selectFrom("follows").select("target_account_id").where("account_id", "=", viewerId);
    const query = this.#db()
      .selectFrom("event_participants")
      .selectAll()
      .where("event_id", "=", eventId)
      .where("status", "in", ["attending", "accepted"])
      .where("account_id", "in", followed);
    return fetchIdPage(query, "id", page);
  }

  /** Everyone with a standing on the event other than a declined one: whom a cancellation tells. */
  async participantIds(eventId: string): Promise<string[]> {
    const rows = await this.#db()
      .selectFrom("event_participants")
      .select("account_id")
      .where("event_id", "=", eventId)
      .where("status", "<>", "rejected")
      .execute();
    return rows.map((row) => row.account_id);
  }

  /** The accounts and groups the viewer follows. */
  async followedIds(viewerId: string): Promise<string[]> {
    const rows = await this.#db().selectFrom("follows").select("target_account_id").where("account_id", "=", viewerId).execute();
    return rows.map((row) => row.target_account_id);
  }

  async linkNotifications(notificationIds: readonly string[], eventId: string): Promise<void> {
    if (notificationIds.length === 0) return;
    await this.#db()
      .insertInto("event_notifications")
      .values(notificationIds.map((notification_id) => ({ notification_id, event_id: eventId })))
      .onConflict((oc) => oc.column("notification_id").doNothing())
      .execute();
  }

  async eventsOfNotifications(notificationIds: readonly string[]): Promise<Map<string, string>> {
    if (notificationIds.length === 0) return new Map();
    const rows = await this.#db().selectFrom("event_notifications").selectAll().where("notification_id", "in", notificationIds).execute();
    return new Map(rows.map((row) => [row.notification_id, row.event_id]));
  }

  async translation(eventId: string, language: string): Promise<EventTranslationRow | undefined> {
    return this.#db()
      .selectFrom("event_translations")
      .selectAll()
      .where("event_id", "=", eventId)
      .where("language", "=", language)
      .executeTakeFirst();
  }

  /** The translations of each event's current version. */
  async currentTranslations(events: readonly EventRow[]): Promise<Map<string, EventTranslationRow[]>> {
    const byEvent = new Map<string, EventTranslationRow[]>();
    if (events.length === 0) return byEvent;
    const versions = new Map(events.map((event) => [event.id, event.version]));
    const rows = await this.#db()
      .selectFrom("event_translations")
      .selectAll()
      .where("event_id", "in", [...versions.keys()])
      .orderBy("language")
      .execute();
    for (const row of rows) {
      if (versions.get(row.event_id) !== row.version) continue;
      byEvent.set(row.event_id, [...(byEvent.get(row.event_id) ?? []), row]);
    }
    return byEvent;
  }

  async saveTranslation(row: EventTranslationRow): Promise<void> {
    await this.#db()
      .insertInto("event_translations")
      .values(row)
      .onConflict((oc) =>
        oc.columns(["event_id", "language"]).doUpdateSet({
          version: row.version,
          title: row.title,
          description: row.description,
          detected_language: row.detected_language,
          provider: row.provider,
          created_at: row.created_at,
        }),
      )
      .execute();
  }

  async settings(ownerId: string): Promise<CalendarSettingsRow | undefined> {
    return this.#db().selectFrom("event_calendar_settings").selectAll().where("owner_id", "=", ownerId).executeTakeFirst();
  }

  async settingsByPrivateId(privateId: string): Promise<CalendarSettingsRow | undefined> {
    return this.#db().selectFrom("event_calendar_settings").selectAll().where("private_id", "=", privateId).executeTakeFirst();
  }

  async saveSettings(row: CalendarSettingsRow): Promise<void> {
    await this.#db()
      .insertInto("event_calendar_settings")
      .values(row)
      .onConflict((oc) =>
        oc.column("owner_id").doUpdateSet({
          public_enabled: row.public_enabled,
          private_id: row.private_id,
          detail_level: row.detail_level,
          export_scope: row.export_scope,
          updated_at: row.updated_at,
        }),
      )
      .execute();
  }
}
