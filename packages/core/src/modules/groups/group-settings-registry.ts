import { z } from "zod";
import type { ErrorDetail } from "../../domain/errors.js";
import { any } from "../../domain/permissions.js";
import { JOIN_MODES, type JoinMode } from "./group-tables-store.js";
import type { GroupChanges, GroupRow } from "./groups-store.js";

/**
 * Who may read a setting: anyone who sees the group; its members; its
 * managers (holders of GroupSettings.Read or GroupSettings.Manage in it).
 * Each level reads the ones before it.
 */
export const SETTING_READERS = ["public", "members", "managers"] as const;
export type SettingReaders = (typeof SETTING_READERS)[number];

/** A group's managers, as settings name them: who reads its `managers` settings, who statuses where only managers do. */
export const MANAGES_GROUP = any("GroupSettings.Read", "GroupSettings.Manage");

/** A setting's value: always a whole object, written whole. */
export type SettingValue = Readonly<Record<string, unknown>>;

/** A setting of groups, as a module registers it. */
export interface GroupSettingDefinition<T extends SettingValue = SettingValue> {
  /** `[a-z][a-z0-9_]*`, unique among the registered settings. */
  readonly key: string;
  /** What the setting governs, for the reference and for clients. */
  readonly description: string;
  /** Checks a whole value: every field the object needs is required, unknown ones refused. */
  readonly schema: z.ZodObject<z.ZodRawShape>;
  /** The value of a group that never set it, and what deleting it reverts to. */
  readonly default: T;
  readonly readableBy: SettingReaders;
}

/**
 * A setting whose value lives in a column of the group's row (the join mode,
 * also changed by PATCH /api/v1/groups/{id}), so that both ways of changing
 * it agree. Only the groups module knows its row.
 */
export interface ColumnSettingDefinition<T extends SettingValue = SettingValue> extends GroupSettingDefinition<T> {
  readonly column: {
    read(group: GroupRow): T;
    write(value: T): GroupChanges;
  };
}

/**
 * The settings groups have, open to every module: the groups module
 * registers its own, another module (a calendar) registers what it reads
 * when its services are built. A value is stored whole and checked against
 * its schema when written; a group that never wrote one has the default.
 */
export class GroupSettingsRegistry {
  readonly #settings = new Map<string, GroupSettingDefinition | ColumnSettingDefinition>();

  register<T extends SettingValue>(definition: GroupSettingDefinition<T>): void {
    if (!/^[a-z][a-z0-9_]*$/.test(definition.key)) throw new Error(`Group setting key ${definition.key} is not [a-z][a-z0-9_]*`);
    if (this.#settings.has(definition.key)) throw new Error(`Group setting ${definition.key} is registered twice`);
    // A default the schema refuses would be a value no client could write back.
    const checked = definition.schema.strict().safeParse(definition.default);
    if (!checked.success) throw new Error(`The default of group setting ${definition.key} does not pass its schema`);
    this.#settings.set(definition.key, definition as GroupSettingDefinition);
  }

  /** The setting of that key; undefined for a key nobody registered. */
  get(key: string): GroupSettingDefinition | ColumnSettingDefinition | undefined {
    return this.#settings.get(key);
  }

  /** Every registered setting, in the order registered. */
  all(): readonly (GroupSettingDefinition | ColumnSettingDefinition)[] {
    return [...this.#settings.values()];
  }

  /**
   * Checks a value against its setting's schema: the value as parsed, or the
   * problems, a missing field named `<key>.<field>` with code `missing`.
   */
  check(definition: GroupSettingDefinition, value: unknown): { value: SettingValue } | { problems: ErrorDetail[] } {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      return { problems: [{ field: definition.key, code: "not_object", message: "A setting is written as a whole object" }] };
    }
    const parsed = definition.schema.strict().safeParse(value);
    if (parsed.success) return { value: parsed.data as SettingValue };
    const given = value as Record<string, unknown>;
    // A field is missing when the value leaves it out and its schema does not take "nothing" (an optional field does).
    const missing = Object.entries(definition.schema.shape)
      .filter(([field, schema]) => given[field] === undefined && !z.safeParse(schema, undefined).success)
      .map(([field]) => field);
    const problems: ErrorDetail[] = missing.map((field) => ({
      field: `${definition.key}.${field}`,
      code: "missing",
      message: "Required: a setting is written whole",
    }));
    for (const issue of parsed.error.issues) {
      const field = issue.path.map(String).join(".");
      if (issue.code === "unrecognized_keys") {
        for (const key of issue.keys)
          problems.push({ field: `${definition.key}.${key}`, code: "unknown_field", message: "Not a field of this setting" });
      } else if (!missing.includes(String(issue.path[0]))) {
        problems.push({ field: field ? `${definition.key}.${field}` : definition.key, code: issue.code, message: issue.message });
      }
    }
    return { problems };
  }
}

/**
 * A setting's value from its stored JSON: the default when the group never
 * wrote it, or when what it wrote no longer passes the setting's schema (a
 * schema changed since), so that a reader always gets a value it knows.
 */
export function storedValue<T extends SettingValue>(setting: GroupSettingDefinition<T>, json: string | undefined): T {
  if (json === undefined) return setting.default;
  const parsed = setting.schema.safeParse(JSON.parse(json));
  return parsed.success ? (parsed.data as T) : setting.default;
}

/** The join mode, kept in the group's row. */
export const JOIN_MODE_SETTING: ColumnSettingDefinition<{ mode: JoinMode }> = {
  key: "join_mode",
  description: "How people join the group: OPEN, APPROVAL, INVITE_ONLY or QUESTIONS (the group's `join_mode`)",
  schema: z.object({ mode: z.enum(JOIN_MODES) }),
  default: { mode: "OPEN" },
  readableBy: "public",
  column: {
    read: (group) => ({ mode: group.join_mode }),
    write: (value) => ({ join_mode: value.mode }),
  },
};

/** Who may post in the group. */
export const POSTING_SETTING: GroupSettingDefinition<{ who: "members" | "managers" }> = {
  key: "posting",
  description:
    "Who may post statuses in the group, replies included: `members` (any member), or `managers` (members holding GroupSettings.Read or " +
    "GroupSettings.Manage through the group's roles: its owners, admins and moderators)",
  schema: z.object({ who: z.enum(["members", "managers"]) }),
  default: { who: "members" },
  readableBy: "public",
};

/** Who sees the statuses posted in the group from now on. */
export const STATUS_PRIVACY_SETTING: GroupSettingDefinition<{ visibility: "public" | "members" }> = {
  key: "status_privacy",
  description:
    "Who sees the statuses posted in a group that is not secret from the change on: `public` (the author's visibility), or `members` " +
    "(posted `direct` to the group's members, and those they mention). Statuses posted before keep their audience; a secret group's " +
    "statuses are its members' whatever this says",
  schema: z.object({ visibility: z.enum(["public", "members"]) }),
  default: { visibility: "public" },
  readableBy: "public",
};

/** Whether the group's calendar is public, read by the calendar application when it comes. */
export const CALENDAR_SETTING: GroupSettingDefinition<{ public: boolean }> = {
  key: "calendar",
  description:
    "Whether the group's calendar (the calendar application) is published to anyone who sees the group (`public: true`) or to its members only",
  schema: z.object({ public: z.boolean() }),
  default: { public: false },
  readableBy: "public",
};

/** The registry with the groups module's own settings. */
export function groupSettingsRegistry(): GroupSettingsRegistry {
  const registry = new GroupSettingsRegistry();
  registry.register(JOIN_MODE_SETTING);
  for (const setting of [POSTING_SETTING, STATUS_PRIVACY_SETTING, CALENDAR_SETTING]) registry.register(setting as GroupSettingDefinition);
  return registry;
}
