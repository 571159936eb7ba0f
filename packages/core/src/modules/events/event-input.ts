/** An event as its organizer describes it, parsed at the edge. */
export interface EventInput {
  readonly title: string;
  /** HTML or plain text; sanitised before it is kept. */
  readonly description: string;
  readonly startTime: Date;
  readonly endTime: Date | null;
  readonly timeZone: string;
  readonly allDay: boolean;
  readonly location: EventLocationInput | null;
  readonly privacy: "public" | "invite_only";
  /** The group whose calendar holds it; null for the organizer's own. */
  readonly groupId: string | null;
}

export interface EventLocationInput {
  readonly name?: string | null | undefined;
  readonly address?: string | null | undefined;
  readonly latitude?: number | null | undefined;
  readonly longitude?: number | null | undefined;
  readonly url?: string | null | undefined;
}

/** An edit: only what is given changes; the group and the organizer stay. */
export type EventChanges = Partial<Omit<EventInput, "groupId">>;

/** What `/events/search` asks. */
export interface EventSearchInput {
  readonly mode: "following" | "local" | "fasp";
  readonly query?: string | undefined;
  readonly from?: Date | undefined;
  readonly to?: Date | undefined;
  readonly near?: { readonly latitude: number; readonly longitude: number; readonly radiusKm: number } | undefined;
  readonly groupId?: string | undefined;
}

/** What `/events/my` narrows the caller's events by. */
export interface MyEventsInput {
  readonly past: boolean;
  readonly organized: boolean;
  readonly pending: boolean;
}

/** Whether the runtime knows the zone (`Intl` throws a RangeError for one it does not). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return zone.length > 0;
  } catch {
    return false;
  }
}
