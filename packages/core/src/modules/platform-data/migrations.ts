import type { MigrationSpec } from "../../ports/migration-spec.js";

/**
 * Platform data entries and their tags.
 *
 * The tags are kept twice: as the entry's `tags` list, which renders it, and
 * one row a tag in `data_entry_tags`, which finds entries by tag. That table
 * is keyed `(owner_id, tag, entry_id)`, so that an owner's entries with a tag
 * are one range of the key in id order, and indexed `(tag, entry_id)` for a
 * server-wide reader; a second tag of an AND is then one key lookup per
 * candidate (see `data-store.ts`). It has no foreign key: the store deletes an
 * entry's tag rows by their full key with the entry, and an index led by
 * `entry_id` that a cascade would need is a third copy of every tag.
 */
export const platformDataMigrations: readonly MigrationSpec[] = [
  {
    name: "platform-data_0001_entries",
    tables: [
      {
        name: "data_entries",
        columns: {
          id: { type: "text" },
          /** A user's id (`us_`), a group's (`gr_`), or `platform`. */
          owner_id: { type: "text" },
          /** An optional category chosen by whoever writes the entry. */
          type: { type: "text", nullable: true },
          /** The entry's tags, a JSON array of strings, in the order they were given. */
          tags: { type: "json" },
          content: { type: "json" },
          created_at: { type: "timestamp" },
          updated_at: { type: "timestamp" },
        },
        primaryKey: ["id"],
        indexes: [
          { name: "data_entries_owner_idx", columns: ["owner_id", "id"] },
          { name: "data_entries_owner_type_idx", columns: ["owner_id", "type", "id"] },
          { name: "data_entries_type_idx", columns: ["type", "id"] },
        ],
      },
      {
        name: "data_entry_tags",
        columns: {
          owner_id: { type: "text" },
          tag: { type: "text" },
          entry_id: { type: "text" },
        },
        primaryKey: ["owner_id", "tag", "entry_id"],
        indexes: [{ name: "data_entry_tags_tag_idx", columns: ["tag", "entry_id"] }],
        withoutRowid: true,
      },
    ],
  },
  {
    // Data became a resource a group's roles may hold: the groups made before then get it in their built-in Owner and
    // Admin roles, as the groups made from now on do (GROUP_BUILT_IN_ROLES).
    name: "platform-data_0002_group_roles_data",
    raw: {
      sqlite: [groupRolesData("1")],
      postgres: [groupRolesData("true")],
    },
  },
];

function groupRolesData(trueLiteral: string): string {
  return `insert into role_permissions (role_id, resource, access)
    select id, 'Data', '["Read","Add","Modify","Delete"]' from roles
    where scope <> 'global' and built_in = ${trueLiteral} and name in ('Owner', 'Admin')
      and not exists (select 1 from role_permissions held where held.role_id = roles.id and held.resource = 'Data')`;
}
