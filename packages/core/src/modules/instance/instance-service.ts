import type { InstanceSettings } from "../../domain/instance-settings.js";
import { countLocalAccounts } from "../accounts/accounts-store.js";
import type { ServiceDeps } from "../service-deps.js";
import type { SettingsService } from "../settings/settings-service.js";

export interface InstanceOverview {
  readonly domain: string;
  readonly origin: string;
  readonly version: string;
  readonly sourceUrl: string;
  readonly settings: InstanceSettings;
  readonly userCount: number;
  readonly statusCount: number;
  readonly domainCount: number;
}

/** What the server says about itself: the instance documents and the health check. */
export class InstanceService {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "config">,
    private readonly settings: SettingsService,
  ) {}

  async overview(): Promise<InstanceOverview> {
    const [settings, userCount] = await Promise.all([this.settings.all(), countLocalAccounts(this.deps.storage.db)]);
    const origin = new URL(this.deps.config.origin);
    return {
      domain: origin.host,
      origin: origin.origin,
      version: this.deps.config.version,
      sourceUrl: this.deps.config.sourceUrl,
      settings,
      userCount,
      // Statuses and known domains arrive with the social core and federation.
      statusCount: 0,
      domainCount: 0,
    };
  }

  /** Throws when the database does not answer. */
  async checkHealth(): Promise<{ database: "ok" }> {
    await this.deps.storage.ping();
    return { database: "ok" };
  }
}
