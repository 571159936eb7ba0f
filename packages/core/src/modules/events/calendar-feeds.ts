import { createHash } from "node:crypto";
import { acctKey } from "../../domain/accounts.js";
import { KithError } from "../../domain/errors.js";
import type { KithServices } from "../core-services.js";
import type { GroupsServices } from "../groups/index.js";
import type { ServiceDeps } from "../service-deps.js";
import type { CalendarSettingsService } from "./calendar-settings-service.js";
import { eventErrors } from "./event-codes.js";
import type { EventViews } from "./event-views.js";
import type { CalendarSettingsRow, EventRow, EventsStore } from "./events-store.js";
import { type DetailLevel, icalDocument } from "./ical-document.js";

/** An iCalendar file with what conditional requests compare. */
export interface CalendarFile {
  readonly body: string;
  /** A strong validator of the bytes. */
  readonly etag: string;
  /** The latest change of what the file holds. */
  readonly lastModified: Date;
}

function isGroupId(id: string): boolean {
  return id.startsWith("gr_");
}

/**
 * The iCalendar files: one event's, and the feeds of a user's or a group's
 * calendar. The public feeds (`/u/{username}.ics`, `/g/{groupname}.ics`)
 * exist only while their owner turned public export on, and never hold an
 * invite-only event; the private feed (`/p/{id}.ics`) holds the owner's
 * invite-only events too, at the detail level and scope the owner chose.
 * Deleted events are left out; cancelled ones stay, as STATUS:CANCELLED.
 */
export class CalendarFeeds {
  constructor(
    private readonly deps: Pick<ServiceDeps, "config">,
    private readonly core: Pick<KithServices, "accounts" | "profiles">,
    private readonly groups: GroupsServices,
    private readonly views: EventViews,
    private readonly settings: CalendarSettingsService,
    private readonly store: EventsStore,
  ) {}

  async eventFile(eventId: string, viewerId: string | null): Promise<CalendarFile> {
    const event = await this.views.visible(eventId, viewerId);
    return this.#file([event], event.title, "full", event.updated_at);
  }

  async userFeed(username: string): Promise<CalendarFile> {
    const account = await this.#account(username);
    if (account === null || isGroupId(account.id)) throw new KithError(eventErrors["event.calendar_not_found"]);
    return this.#publicFeed(account.id, account.username);
  }

  async groupFeed(groupName: string): Promise<CalendarFile> {
    // A group is an account with the group's id and its name as username.
    const groupId = await this.core.profiles.idByAcctKey(acctKey(groupName, null));
    if (groupId === null || !isGroupId(groupId)) throw new KithError(eventErrors["event.calendar_not_found"]);
    // A secret group's calendar is not shown to those outside it, whatever its settings say.
    await this.groups.groups.conceal(groupId, null).catch(() => {
      throw new KithError(eventErrors["event.calendar_not_found"]);
    });
    return this.#publicFeed(groupId, groupName);
  }

  async privateFeed(privateId: string): Promise<CalendarFile> {
    const settings = await this.settings.byPrivateId(privateId);
    const name = (await this.core.accounts.findById(settings.owner_id).catch(() => null))?.username ?? settings.owner_id;
    return this.#feed(settings, name, false);
  }

  async #publicFeed(ownerId: string, name: string): Promise<CalendarFile> {
    const kept = await this.settings.of(ownerId);
    if (!(await this.settings.isPublic(ownerId, kept))) throw new KithError(eventErrors["event.calendar_not_found"]);
    // A group that turned its calendar public through the group settings may have no row yet: its defaults apply.
    const settings = kept ?? {
      owner_id: ownerId,
      public_enabled: true,
      private_id: "",
      detail_level: "full",
      export_scope: "organized",
      updated_at: new Date(0).toISOString(),
    };
    return this.#feed(settings, name, true);
  }

  async #feed(settings: CalendarSettingsRow, name: string, publicOnly: boolean): Promise<CalendarFile> {
    const events = await this.store.calendarEvents(
      settings.owner_id,
      isGroupId(settings.owner_id),
      settings.export_scope === "attended",
      publicOnly,
    );
    const detail: DetailLevel = settings.detail_level === "busy" ? "busy" : "full";
    return this.#file(events, name, detail, settings.updated_at);
  }

  #file(events: readonly EventRow[], name: string, detail: DetailLevel, since: string): CalendarFile {
    const body = icalDocument(events, {
      name,
      host: new URL(this.deps.config.origin).host,
      detail,
      urlOf: (eventId) => this.views.urlOf(eventId),
    });
    // ISO times in UTC compare as strings.
    const latest = [since, ...events.map((event) => event.updated_at)].sort().at(-1) ?? since;
    const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 32)}"`;
    // HTTP dates have whole seconds: a change within the second still changes the ETag.
    return { body, etag, lastModified: new Date(Math.floor(new Date(latest).getTime() / 1000) * 1000) };
  }

  async #account(username: string): Promise<{ id: string; username: string } | null> {
    try {
      return await this.core.accounts.findByUsername(username);
    } catch {
      return null;
    }
  }
}
