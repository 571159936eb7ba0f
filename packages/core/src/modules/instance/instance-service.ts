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
  /** The VAPID public key Web Push messages are signed with; empty without the push module. */
  readonly vapidPublicKey: string;
}

/** What the server says about itself: the instance documents and the health check. */
export class InstanceService {
  #vapidKey: (() => Promise<string>) | null = null;

  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "config">,
    private readonly settings: SettingsService,
  ) {}

  /** Answers the VAPID public key from `key` from now on (the push module's). */
  bindVapidKey(key: () => Promise<string>): void {
    this.#vapidKey = key;
  }

  /** The VAPID public key, or an empty one without Web Push, which clients read as "no push" rather than trip on a missing one. */
  vapidPublicKey(): Promise<string> {
    return this.#vapidKey ? this.#vapidKey() : Promise.resolve("");
  }

  async overview(): Promise<InstanceOverview> {
    const [settings, userCount, vapidPublicKey] = await Promise.all([
      this.settings.all(),
      countLocalAccounts(this.deps.storage.db),
      this.vapidPublicKey(),
    ]);
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
      vapidPublicKey,
    };
  }

  /** Throws when the database does not answer. */
  async checkHealth(): Promise<{ database: "ok" }> {
    await this.deps.storage.ping();
    return { database: "ok" };
  }
}
