import { KithError } from "../../domain/errors.js";
import type { PageRequest } from "../../domain/page.js";
import { eventErrors } from "./event-codes.js";
import type { EventEntity } from "./event-entities.js";
import type { EventSearchInput } from "./event-input.js";
import type { EventViews } from "./event-views.js";
import type { EventFilter, EventRow, EventsStore } from "./events-store.js";

const EARTH_RADIUS_KM = 6371;
const KM_PER_DEGREE = (Math.PI * EARTH_RADIUS_KM) / 180;

/** Great-circle distance in kilometres (haversine). */
export function distanceKm(a: { latitude: number; longitude: number }, b: { latitude: number; longitude: number }): number {
  const rad = Math.PI / 180;
  const dLat = (b.latitude - a.latitude) * rad;
  const dLon = (b.longitude - a.longitude) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.latitude * rad) * Math.cos(b.latitude * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** The latitude and longitude box around a circle: the index narrows by it, the exact distance then decides. */
function boxAround(near: NonNullable<EventSearchInput["near"]>): NonNullable<EventFilter["box"]> {
  const dLat = near.radiusKm / KM_PER_DEGREE;
  const cos = Math.cos((near.latitude * Math.PI) / 180);
  const dLon = cos < 1e-6 ? 180 : Math.min(180, near.radiusKm / (KM_PER_DEGREE * cos));
  return {
    minLat: near.latitude - dLat,
    maxLat: near.latitude + dLat,
    minLon: near.longitude - dLon,
    maxLon: near.longitude + dLon,
  };
}

/**
 * `/events/search` in the spec's three modes. `following`: events organized
 * by accounts the caller follows or held by groups it follows. `local`: this
 * server's events; it needs a query, a date range or a point and radius, so
 * that it is never a dump of every event. `fasp`: through a FASP discovery
 * provider; none can be configured yet, which the answer says (503).
 */
export class EventSearch {
  constructor(
    private readonly views: EventViews,
    private readonly store: EventsStore,
  ) {}

  async search(viewerId: string | null, input: EventSearchInput, page: PageRequest): Promise<EventEntity[]> {
    const narrowed = input.query !== undefined || input.from !== undefined || input.to !== undefined || input.near !== undefined;
    if (input.mode !== "following" && !narrowed) throw new KithError(eventErrors["event.search_filter_required"]);
    if (input.mode === "fasp") throw new KithError(eventErrors["event.fasp_not_configured"]);
    if (input.mode === "following" && viewerId === null) throw new KithError("auth.unauthenticated");
    const filter: EventFilter = {
      viewerId,
      ...(input.query !== undefined && { query: input.query }),
      ...(input.from !== undefined && { from: input.from.toISOString() }),
      ...(input.to !== undefined && { to: input.to.toISOString() }),
      ...(input.near !== undefined && { box: boxAround(input.near) }),
      ...(input.groupId !== undefined && { groupId: input.groupId }),
      ...(input.mode === "following" && viewerId !== null && { organizersOrGroups: await this.store.followedIds(viewerId) }),
    };
    const near = input.near;
    const rows = (await this.store.page(filter, page)).filter(
      (row: EventRow) =>
        near === undefined ||
        (row.latitude !== null &&
          row.longitude !== null &&
          distanceKm(near, { latitude: row.latitude, longitude: row.longitude }) <= near.radiusKm),
    );
    return this.views.render(await this.views.filterVisible(rows, viewerId), viewerId);
  }
}
