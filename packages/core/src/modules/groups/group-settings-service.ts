import { KithError } from "../../domain/errors.js";
import type { ErrorDetail } from "../../domain/errors.js";
import { type Grant, ruleHolds } from "../../domain/permissions.js";
import type { ServiceDeps } from "../service-deps.js";
import { groupsDb } from "./group-tables-store.js";
import type { GroupViews } from "./group-views.js";
import { groupSettingsErrors } from "./group-settings-errors.js";
import {
  type ColumnSettingDefinition,
  type GroupSettingDefinition,
  type GroupSettingsRegistry,
  MANAGES_GROUP,
  SETTING_READERS,
  type SettingReaders,
  type SettingValue,
  storedValue,
} from "./group-settings-registry.js";
import { deleteSettings, groupSettingsDb, settingsOf, writeSetting } from "./group-settings-store.js";
import { type GroupChanges, type GroupRow, updateGroup } from "./groups-store.js";
import { findMember } from "./members-store.js";

/** A group's settings as the API answers them: each readable key with its whole value. */
export type GroupSettingsEntity = Record<string, SettingValue>;

type AnySetting = GroupSettingDefinition | ColumnSettingDefinition;

function isColumn(setting: AnySetting): setting is ColumnSettingDefinition {
  return "column" in setting;
}

/**
 * A group's settings (the spec's "Group settings"): read by key, each as far
 * as the caller may read it; written whole, several at once; deleted back to
 * their defaults. Who may write is the route's permission rule; the service
 * adds the read levels and hides a secret group from whoever may not see it.
 */
export class GroupSettingsService {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "clock">,
    private readonly views: GroupViews,
    readonly registry: GroupSettingsRegistry,
  ) {}

  /** The settings of those keys (every registered one when none is named) that the viewer may read. */
  async read(groupId: string, viewerId: string | null, grants: readonly Grant[], keys?: readonly string[]): Promise<GroupSettingsEntity> {
    const group = await this.views.visible(groupId, viewerId);
    const settings = keys === undefined || keys.length === 0 ? this.registry.all() : this.#known(keys);
    const level = await this.#levelOf(groupId, viewerId, grants);
    const readable = settings.filter((setting) => SETTING_READERS.indexOf(setting.readableBy) <= SETTING_READERS.indexOf(level));
    return this.#values(group, readable);
  }

  /** Writes each setting whole, all or none; the settings after, as the writer reads them. */
  async write(
    groupId: string,
    actorId: string,
    grants: readonly Grant[],
    values: Readonly<Record<string, unknown>>,
  ): Promise<GroupSettingsEntity> {
    await this.views.visible(groupId, actorId);
    const settings = this.#known(Object.keys(values));
    const problems: ErrorDetail[] = [];
    const checked: { setting: AnySetting; value: SettingValue }[] = [];
    for (const setting of settings) {
      const result = this.registry.check(setting, values[setting.key]);
      if ("problems" in result) problems.push(...result.problems);
      else checked.push({ setting, value: result.value });
    }
    if (problems.length > 0) {
      const missing = problems.filter((problem) => problem.code === "missing").map((problem) => problem.field);
      throw new KithError(groupSettingsErrors["group.setting_invalid"], {
        ...(missing.length > 0 && { message: `A setting is written as a whole object; missing: ${missing.join(", ")}` }),
        details: problems,
      });
    }
    const now = this.deps.clock.now().toISOString();
    await this.deps.storage.transaction(async (trx) => {
      const changes: GroupChanges[] = [];
      for (const { setting, value } of checked) {
        if (isColumn(setting)) changes.push(setting.column.write(value));
        else
          await writeSetting(groupSettingsDb(trx), {
            group_id: groupId,
            key: setting.key,
            value: JSON.stringify(value),
            updated_by: actorId,
            updated_at: now,
          });
      }
      if (changes.length > 0) await updateGroup(groupsDb(trx), groupId, Object.assign({}, ...changes), now);
    });
    return this.read(groupId, actorId, grants, settings.length > 0 ? settings.map((setting) => setting.key) : undefined);
  }

  /** Reverts the settings of those keys to their defaults; the settings after, as the caller reads them. */
  async reset(groupId: string, actorId: string, grants: readonly Grant[], keys: readonly string[]): Promise<GroupSettingsEntity> {
    await this.views.visible(groupId, actorId);
    const settings = this.#known(keys);
    const now = this.deps.clock.now().toISOString();
    await this.deps.storage.transaction(async (trx) => {
      const columns = settings.filter(isColumn).map((setting) => setting.column.write(setting.default));
      if (columns.length > 0) await updateGroup(groupsDb(trx), groupId, Object.assign({}, ...columns), now);
      await deleteSettings(
        groupSettingsDb(trx),
        groupId,
        settings.filter((setting) => !isColumn(setting)).map((setting) => setting.key),
      );
    });
    return this.read(groupId, actorId, grants, keys);
  }

  /**
   * The value of one setting of a group, whoever asks: what a module reads
   * to act on a setting it registered (its own routes see to who asks).
   */
  async valueOf<T extends SettingValue>(groupId: string, setting: GroupSettingDefinition<T>): Promise<T> {
    const group = await this.views.current(groupId);
    const [value] = Object.values(await this.#values(group, [this.#known([setting.key])[0] as AnySetting]));
    return value as T;
  }

  /** The registered settings of those keys; `group.setting_unknown` naming each unknown one. */
  #known(keys: readonly string[]): AnySetting[] {
    const unique = [...new Set(keys)];
    const unknown = unique.filter((key) => this.registry.get(key) === undefined);
    if (unknown.length > 0) {
      throw new KithError(groupSettingsErrors["group.setting_unknown"], {
        message: `No group setting has the key ${unknown.join(", ")}`,
        details: unknown.map((key) => ({ field: key, code: "unknown_setting", message: "No group setting has this key" })),
      });
    }
    return unique.map((key) => this.registry.get(key) as AnySetting);
  }

  async #levelOf(groupId: string, viewerId: string | null, grants: readonly Grant[]): Promise<SettingReaders> {
    if (ruleHolds(MANAGES_GROUP, grants, groupId)) return "managers";
    if (viewerId !== null && (await findMember(groupsDb(this.deps.storage.db), groupId, viewerId))) return "members";
    return "public";
  }

  async #values(group: GroupRow, settings: readonly AnySetting[]): Promise<GroupSettingsEntity> {
    const tableKeys = settings.filter((setting) => !isColumn(setting)).map((setting) => setting.key);
    const stored = await settingsOf(groupSettingsDb(this.deps.storage.db), group.id, tableKeys);
    const values: GroupSettingsEntity = {};
    for (const setting of settings) {
      values[setting.key] = isColumn(setting) ? setting.column.read(group) : storedValue(setting, stored.get(setting.key));
    }
    return values;
  }
}
