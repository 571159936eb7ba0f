import { KithError } from "../../domain/errors.js";
import { type MarkerRecord, findMarkers, insertMarker, moveMarker } from "./markers-store.js";
import type { ServiceDeps } from "../service-deps.js";

export type { MarkerRecord };

/** The timelines a marker can be kept for, as in Mastodon. */
export const MARKER_TIMELINES = ["home", "notifications"] as const;
export type MarkerTimeline = (typeof MARKER_TIMELINES)[number];

/** Called when the notifications marker moves, so notifications up to it count as read. */
export type NotificationsReadHook = (accountId: string, upToId: string) => Promise<void>;

/**
 * Read positions in the home and notifications timelines, shared by a
 * user's clients. Each save bumps a version; a save that finds the marker
 * moved since it was read is refused with 409, as Mastodon answers a stale
 * write, and the client reads the marker again.
 */
export class MarkerService {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "clock">,
    private readonly onNotificationsRead: NotificationsReadHook,
  ) {}

  get(accountId: string, timelines: readonly MarkerTimeline[]): Promise<MarkerRecord[]> {
    return findMarkers(this.deps.storage.db, accountId, [...new Set(timelines)]);
  }

  /**
   * Saves markers. `expectedVersions` (Kith's addition, optional) names the
   * version the client last read; without it the version read here is used,
   * so only a write racing this one conflicts.
   */
  async save(
    accountId: string,
    positions: Partial<Record<MarkerTimeline, string>>,
    expectedVersions: Partial<Record<MarkerTimeline, number>> = {},
  ): Promise<MarkerRecord[]> {
    const at = this.deps.clock.now().toISOString();
    const db = this.deps.storage.db;
    const timelines = MARKER_TIMELINES.filter((t) => positions[t] !== undefined);
    const current = new Map((await findMarkers(db, accountId, timelines)).map((m) => [m.timeline, m]));
    for (const timeline of timelines) {
      const lastReadId = positions[timeline] as string;
      const existing = current.get(timeline);
      const expected = expectedVersions[timeline];
      const saved = existing
        ? await moveMarker(db, accountId, timeline, expected ?? existing.version, lastReadId, at)
        : expected === undefined || expected === 0
          ? await insertMarker(db, accountId, timeline, lastReadId, at)
          : false;
      if (!saved) throw new KithError("marker.stale");
      if (timeline === "notifications") await this.onNotificationsRead(accountId, lastReadId);
    }
    return findMarkers(db, accountId, timelines);
  }
}
