import { KithError } from "../../domain/errors.js";
import { type InstanceSettings, instanceSettingsSchema } from "../../domain/instance-settings.js";
import { readStoredSettings, settingUpdatedAt, writeSettings } from "./instance-settings-store.js";
import type { ServiceDeps } from "../service-deps.js";

/** Server settings administrators change at run time. */
export class SettingsService {
  constructor(private readonly deps: Pick<ServiceDeps, "storage" | "clock" | "config">) {}

  /** Every setting, stored values over the configured defaults over the built-in ones. A stored value that no longer parses falls back to its default. */
  async all(): Promise<InstanceSettings> {
    const stored = { ...this.deps.config.settingDefaults, ...(await readStoredSettings(this.deps.storage.db)) };
    const result = instanceSettingsSchema.safeParse(stored);
    if (result.success) return result.data;
    const valid = Object.fromEntries(
      Object.entries(stored).filter(([key, value]) => {
        const field = instanceSettingsSchema.shape[key as keyof InstanceSettings];
        return field?.safeParse(value).success ?? false;
      }),
    );
    return instanceSettingsSchema.parse(valid);
  }

  async get<K extends keyof InstanceSettings>(key: K): Promise<InstanceSettings[K]> {
    return (await this.all())[key];
  }

  /** When a setting was last changed; null while it has its default. */
  updatedAt(key: keyof InstanceSettings): Promise<string | null> {
    return settingUpdatedAt(this.deps.storage.db, key);
  }

  /** Changes some settings; refuses unknown keys and bad values, writing nothing then. */
  async update(changes: Record<string, unknown>): Promise<InstanceSettings> {
    const parsed = instanceSettingsSchema.partial().strict().safeParse(changes);
    if (!parsed.success) {
      throw new KithError("settings.invalid_value", {
        details: parsed.error.issues.map((issue) => ({
          field: issue.path.join(".") || String((issue as { keys?: string[] }).keys?.[0] ?? ""),
          message: issue.message,
        })),
      });
    }
    const now = this.deps.clock.now().toISOString();
    // Only what the caller named: a partial schema still fills in the defaults of the keys left out (zod 4), which
    // would put back every other setting.
    const defined = Object.fromEntries(Object.entries(parsed.data).filter(([key, value]) => key in changes && value !== undefined));
    await this.deps.storage.transaction((trx) => writeSettings(trx, defined, now));
    return this.all();
  }
}
