import type { MigrationSpec } from "../../ports/migration-spec.js";

/**
 * Calendar events: the events, who takes part in each (one row per account
 * and event, its RSVP state), the translations kept per content version,
 * the calendar settings of users and groups, and which notifications tell
 * of which event. `group_id` and `owner_id` may name a group: no foreign key,
 * as a module's tables do not reference another module's.
 */
export const eventMigrations: readonly MigrationSpec[] = [
  {
    name: "events_0001_events",
    tables: [
      {
        name: "events",
        columns: {
          id: { type: "text" },
          organizer_id: { type: "text", references: "accounts(id)", onDelete: "cascade" },
          /** The group whose calendar holds it (`gr_…`), or null for the organizer's own. */
          group_id: { type: "text", nullable: true },
          title: { type: "text" },
          /** Sanitised HTML, as a status's content. */
          description: { type: "text" },
          starts_at: { type: "timestamp" },
          ends_at: { type: "timestamp", nullable: true },
          /** IANA time zone the event is planned in (`Europe/Paris`). */
          time_zone: { type: "text" },
          all_day: { type: "bool" },
          location_name: { type: "text", nullable: true },
          location_address: { type: "text", nullable: true },
          latitude: { type: "real", nullable: true },
          longitude: { type: "real", nullable: true },
          online_url: { type: "text", nullable: true },
          /** `public` or `invite_only`. */
          privacy: { type: "text" },
          cancelled_at: { type: "timestamp", nullable: true },
          deleted_at: { type: "timestamp", nullable: true },
          /** Bumped by every edit of what is translated or exported: translations and ETags follow it. */
          version: { type: "int" },
          created_at: { type: "timestamp" },
          updated_at: { type: "timestamp" },
        },
        primaryKey: ["id"],
        indexes: [
          { name: "events_organizer_idx", columns: ["organizer_id", "id"] },
          { name: "events_group_idx", columns: ["group_id", "id"], where: "group_id IS NOT NULL" },
          { name: "events_starts_idx", columns: ["starts_at"] },
        ],
      },
      {
        name: "event_participants",
        columns: {
          /** Time-ordered (`ep_…`): the cursor of the attendees list. */
          id: { type: "text" },
          event_id: { type: "text", references: "events(id)", onDelete: "cascade" },
          account_id: { type: "text", references: "accounts(id)", onDelete: "cascade" },
          /** Public events: `attending`, `interested`; invite-only: `pending`, `accepted`, `tentative`, `rejected`. */
          status: { type: "text" },
          created_at: { type: "timestamp" },
          updated_at: { type: "timestamp" },
        },
        primaryKey: ["id"],
        indexes: [
          { name: "event_participants_event_account_idx", columns: ["event_id", "account_id"], unique: true },
          { name: "event_participants_account_idx", columns: ["account_id", "event_id"] },
        ],
      },
      {
        name: "event_translations",
        columns: {
          event_id: { type: "text", references: "events(id)", onDelete: "cascade" },
          language: { type: "text" },
          /** The event's `version` translated: a later edit makes it stale. */
          version: { type: "int" },
          title: { type: "text" },
          description: { type: "text" },
          detected_language: { type: "text", nullable: true },
          provider: { type: "text" },
          created_at: { type: "timestamp" },
        },
        primaryKey: ["event_id", "language"],
      },
      {
        name: "event_calendar_settings",
        columns: {
          /** The user's account id or the group's id. */
          owner_id: { type: "text" },
          public_enabled: { type: "bool" },
          /** Long, random and URL-safe; the private feed's address. Regenerated, the old one answers 404. */
          private_id: { type: "text" },
          /** `full` or `busy` (times only). */
          detail_level: { type: "text" },
          /** `organized`, or `attended` (also the events the owner takes part in). */
          export_scope: { type: "text" },
          updated_at: { type: "timestamp" },
        },
        primaryKey: ["owner_id"],
        indexes: [{ name: "event_calendar_settings_private_idx", columns: ["private_id"], unique: true }],
      },
      {
        name: "event_notifications",
        columns: {
          notification_id: { type: "text", references: "notifications(id)", onDelete: "cascade" },
          event_id: { type: "text", references: "events(id)", onDelete: "cascade" },
        },
        primaryKey: ["notification_id"],
      },
    ],
  },
];
