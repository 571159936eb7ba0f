import { knownPeers, type WeekActivity, weeklyActivity } from "./instance-activity-store.js";
import type { ServiceDeps } from "../service-deps.js";
import { KithError } from "../../domain/errors.js";
import type { SettingsService } from "../settings/settings-service.js";

const WEEK_MS = 7 * 86_400_000;
const WEEKS = 12;

/** Monday 00:00 UTC of the week holding `ms`, as Mastodon starts its weeks. */
export function weekStart(ms: number): number {
  const day = new Date(ms);
  const midnight = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate());
  return midnight - ((day.getUTCDay() + 6) % 7) * 86_400_000;
}

/**
 * Mastodon's public instance statistics: the servers this one knows, and twelve weeks of activity. A server that
 * federates with its allowlist only publishes neither (404), as Mastodon in limited federation mode does not.
 */
export class InstanceActivityService {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "clock">,
    private readonly settings: Pick<SettingsService, "get">,
  ) {}

  async #refuseWhenAllowlisted(): Promise<void> {
    if (await this.settings.get("federationAllowlistEnabled")) throw new KithError("request.not_found");
  }

  /** The servers known, less those suspended: Mastodon lists no domain it blocks. */
  async peers(): Promise<string[]> {
    await this.#refuseWhenAllowlisted();
    return knownPeers(this.deps.storage.db);
  }

  /** This week first. */
  async weekly(): Promise<WeekActivity[]> {
    await this.#refuseWhenAllowlisted();
    const current = weekStart(this.deps.clock.now().getTime());
    return weeklyActivity(
      this.deps.storage.db,
      Array.from({ length: WEEKS }, (_, i) => current - i * WEEK_MS),
    );
  }
}
