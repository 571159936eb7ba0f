import { knownPeers, type WeekActivity, weeklyActivity } from "./instance-activity-store.js";
import type { ServiceDeps } from "../service-deps.js";

const WEEK_MS = 7 * 86_400_000;
const WEEKS = 12;

/** Monday 00:00 UTC of the week holding `ms`, as Mastodon starts its weeks. */
export function weekStart(ms: number): number {
  const day = new Date(ms);
  const midnight = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate());
  return midnight - ((day.getUTCDay() + 6) % 7) * 86_400_000;
}

/** Mastodon's public instance statistics: the servers this one knows, and twelve weeks of activity. */
export class InstanceActivityService {
  constructor(private readonly deps: Pick<ServiceDeps, "storage" | "clock">) {}

  peers(): Promise<string[]> {
    return knownPeers(this.deps.storage.db);
  }

  /** This week first. */
  weekly(): Promise<WeekActivity[]> {
    const current = weekStart(this.deps.clock.now().getTime());
    return weeklyActivity(
      this.deps.storage.db,
      Array.from({ length: WEEKS }, (_, i) => current - i * WEEK_MS),
    );
  }
}
