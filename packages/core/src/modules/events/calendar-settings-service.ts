import { KithError } from "../../domain/errors.js";
import { type Grant, holdsPermission } from "../../domain/permissions.js";
import { toBool } from "../../ports/storage-schema.js";
import type { GroupsServices } from "../groups/index.js";
import type { ServiceDeps } from "../service-deps.js";
import { eventErrors } from "./event-codes.js";
import type { CalendarSettingsEntity } from "./event-entities.js";
import type { CalendarSettingsRow, EventsStore } from "./events-store.js";
import { CALENDAR_APP, GROUP_EVENT_PERMISSION } from "./event-service.js";

/** 32 random bytes: 43 URL-safe characters, not guessable. */
const PRIVATE_ID_BYTES = 32;

export interface CalendarSettingsChanges {
  readonly publicCalendar?: boolean | undefined;
  readonly detailLevel?: "full" | "busy" | undefined;
  readonly exportScope?: "organized" | "attended" | undefined;
}

/** Whose calendar: the caller's own, or a group's (which needs GroupSettings.Manage in it). */
export interface CalendarOwner {
  readonly actorId: string;
  readonly grants: readonly Grant[];
  readonly groupId: string | null;
}

/**
 * A user's or a group's calendar export settings: whether the public feed
 * is served, the private feed's id (regenerating it kills the old link),
 * how much the feeds tell (full details, or busy/free only) and what they
 * hold (organized events, or also those attended). The row is made with
 * defaults on first read: public off, full details, organized only.
 */
export class CalendarSettingsService {
  constructor(
    private readonly deps: Pick<ServiceDeps, "clock" | "random" | "config">,
    private readonly groups: GroupsServices,
    private readonly store: EventsStore,
  ) {}

  async get(owner: CalendarOwner): Promise<CalendarSettingsEntity> {
    return this.#render(await this.#row(await this.#ownerId(owner)));
  }

  async update(owner: CalendarOwner, changes: CalendarSettingsChanges): Promise<CalendarSettingsEntity> {
    const current = await this.#row(await this.#ownerId(owner));
    // A group's public calendar is its `calendar` group setting: one switch, whichever API turns it.
    if (owner.groupId !== null && changes.publicCalendar !== undefined) {
      await this.groups.settings.write(owner.groupId, owner.actorId, owner.grants, { calendar: { public: changes.publicCalendar } });
    }
    const row: CalendarSettingsRow = {
      ...current,
      ...(owner.groupId === null && changes.publicCalendar !== undefined && { public_enabled: changes.publicCalendar }),
      ...(changes.detailLevel !== undefined && { detail_level: changes.detailLevel }),
      ...(changes.exportScope !== undefined && { export_scope: changes.exportScope }),
      updated_at: this.deps.clock.now().toISOString(),
    };
    await this.store.saveSettings(row);
    return this.#render(row);
  }

  async regeneratePrivateId(owner: CalendarOwner): Promise<CalendarSettingsEntity> {
    const current = await this.#row(await this.#ownerId(owner));
    const row = { ...current, private_id: this.#privateId(), updated_at: this.deps.clock.now().toISOString() };
    await this.store.saveSettings(row);
    return this.#render(row);
  }

  /** The settings of an owner as kept, or none yet: what a public feed reads. */
  async of(ownerId: string): Promise<CalendarSettingsRow | undefined> {
    return this.store.settings(ownerId);
  }

  /** Whether the owner publishes its calendar: a user's own switch, a group's `calendar` setting (as a guest reads it). */
  async isPublic(ownerId: string, row: CalendarSettingsRow | undefined): Promise<boolean> {
    if (!ownerId.startsWith("gr_")) return row !== undefined && toBool(row.public_enabled);
    const values = await this.groups.settings.read(ownerId, null, [], ["calendar"]);
    return (values.calendar as { public?: boolean } | undefined)?.public === true;
  }

  async byPrivateId(privateId: string): Promise<CalendarSettingsRow> {
    const row = await this.store.settingsByPrivateId(privateId);
    if (!row) throw new KithError(eventErrors["event.calendar_not_found"]);
    return row;
  }

  async #ownerId(owner: CalendarOwner): Promise<string> {
    if (owner.groupId === null) return owner.actorId;
    await this.groups.apps.require(owner.groupId, CALENDAR_APP, owner.actorId);
    if (!holdsPermission(owner.grants, GROUP_EVENT_PERMISSION, owner.groupId)) throw new KithError("auth.forbidden");
    return owner.groupId;
  }

  async #row(ownerId: string): Promise<CalendarSettingsRow> {
    const kept = await this.store.settings(ownerId);
    if (kept) return kept;
    const row: CalendarSettingsRow = {
      owner_id: ownerId,
      public_enabled: false,
      private_id: this.#privateId(),
      detail_level: "full",
      export_scope: "organized",
      updated_at: this.deps.clock.now().toISOString(),
    };
    await this.store.saveSettings(row);
    return row;
  }

  #privateId(): string {
    return Buffer.from(this.deps.random.bytes(PRIVATE_ID_BYTES)).toString("base64url");
  }

  async #render(row: CalendarSettingsRow): Promise<CalendarSettingsEntity> {
    return {
      ownerId: row.owner_id,
      publicCalendar: await this.isPublic(row.owner_id, row),
      privateId: row.private_id,
      detailLevel: row.detail_level === "busy" ? "busy" : "full",
      exportScope: row.export_scope === "attended" ? "attended" : "organized",
      privateUrl: `${this.deps.config.origin}/api/v1/events/calendar/p/${row.private_id}.ics`,
      updatedAt: row.updated_at,
    };
  }
}
