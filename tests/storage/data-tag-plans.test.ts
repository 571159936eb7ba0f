import { type Storage, coreMigrations, migrationsWithModules, platformDataModule } from "@kith/core";
import { createSqliteStorage } from "@kith/storage-sqlite";
import { CompiledQuery, type KyselyPlugin, type RootOperationNode, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { entriesPage } from "../../packages/core/src/modules/platform-data/data-store.js";
import { type RecordingStorage, planOfSent, recordingStorage, wholeTableWork } from "../support/postgres-plans.js";
import { describeIfPostgres } from "../support/real-servers.js";

/**
 * How both engines read a page of platform data entries with several tags
 * AND-ed (modules/platform-data/data-store.ts): along one tag's key range in
 * id order, newest first, each other tag one key lookup per row, so that
 * the page costs the rows it reads before it fills, not the entries there
 * are. Neither engine may scan the entries or their tags, nor sort or hash
 * the rows of a large owner or of every owner.
 */
const ENTRIES = 20_000;
const PAGE = { limit: 40 };
/** `common` on every other entry, `third` on every third, `rare` on every 97th; one entry in twenty is another owner's. */
const tagged = (padded: string) =>
  `select 'da_' || ${padded} as id, case when n % 20 = 0 then 'us_other' else 'platform' end as owner_id, n from numbers`;
const TAG_ROWS = (tag: string, every: number) =>
  `insert into data_entry_tags (owner_id, tag, entry_id) select owner_id, '${tag}', id from tagged where n % ${every} = 0`;

const SCHEMA = migrationsWithModules(coreMigrations, [platformDataModule]);

/**
 * Fills the entries and their tags with one statement each (`numbers` is 1..ENTRIES, made by the engine's own
 * means; `padded` the engine's zero-padded n, so that ids sort as numbers).
 */
async function seed(db: Storage["db"], padded: string): Promise<void> {
  const now = "2026-11-01T00:00:00.000Z";
  const TAGGED = tagged(padded);
  await sql
    .raw(`insert into data_entries (id, owner_id, type, tags, content, created_at, updated_at)
      with tagged as (${TAGGED}) select id, owner_id, case when n % 4 = 0 then 'event' end, '[]', '{}', '${now}', '${now}' from tagged`)
    .execute(db);
  for (const [tag, every] of [
    ["common", 2],
    ["third", 3],
    ["rare", 97],
  ] as const) {
    await sql.raw(`with tagged as (${TAGGED}) ${TAG_ROWS(tag, every)}`).execute(db);
  }
}

const filters = [
  { name: "every owner's (a global grant)", owners: null },
  { name: "one owner's", owners: ["platform"] },
  { name: "several owners'", owners: ["platform", "us_other"] },
] as const;

/** Keeps the statements sent through a Kysely, compiled as the engine got them. */
class CompiledStatements implements KyselyPlugin {
  readonly nodes: RootOperationNode[] = [];
  transformQuery({ node }: { node: RootOperationNode }): RootOperationNode {
    this.nodes.push(node);
    return node;
  }
  async transformResult<R>({ result }: { result: R }): Promise<R> {
    return result;
  }
}

describe("a page of platform data with tags AND-ed, on SQLite", () => {
  let storage: Storage;
  beforeAll(async () => {
    storage = createSqliteStorage({ filename: ":memory:" });
    await storage.migrate(SCHEMA);
    await sql
      .raw(
        `create temp table numbers as with recursive c(n) as (select 1 union all select n + 1 from c where n < ${ENTRIES}) select n from c`,
      )
      .execute(storage.db);
    await seed(storage.db, "printf('%08d', n)");
  });
  afterAll(() => storage?.close());

  for (const filter of filters) {
    it(`reads ${filter.name} along a tag's key, newest first, with no sort and no scan`, async () => {
      const recorder = new CompiledStatements();
      const db = storage.db.withPlugin(recorder);
      const page = await entriesPage(db, { owners: filter.owners, tags: ["common", "third"], type: "event" }, PAGE);
      expect(page).toHaveLength(40);
      expect(page.map((row) => row.id)).toEqual([...page.map((row) => row.id)].sort().reverse());
      const statement = recorder.nodes.at(-1) as RootOperationNode;
      const compiled = db.getExecutor().compileQuery(statement, { queryId: "plan" } as never);
      const { rows } = await storage.db.executeQuery<{ detail: string }>(
        CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]),
      );
      const details = rows.map((row) => row.detail).join("\n");
      expect(details).not.toMatch(/SCAN data_entries|SCAN t0|SCAN t1|SCAN e\b/);
      // Several owners' pages are merged: the merge orders each owner's page (at most `limit` rows), not the entries.
      if (filter.owners === null || filter.owners.length === 1) expect(details).not.toMatch(/TEMP B-TREE/);
      expect(details).toMatch(/SEARCH t0 USING (PRIMARY KEY|COVERING INDEX data_entry_tags_tag_idx)/);
    });
  }
});

describeIfPostgres("a page of platform data with tags AND-ed, on PostgreSQL", () => {
  let recording: RecordingStorage;
  beforeAll(async () => {
    recording = await recordingStorage(1);
    await recording.storage.migrate(SCHEMA);
    const db = recording.storage.db;
    await sql.raw(`create temp table numbers as select n from generate_series(1, ${ENTRIES}) n`).execute(db);
    await seed(db, "lpad(n::text, 8, '0')");
    await sql`analyze`.execute(db);
  });
  afterAll(() => recording?.close());

  for (const filter of filters) {
    it(`reads ${filter.name} with index probes, sorting, hashing and scanning no table`, async () => {
      const page = await entriesPage(recording.storage.db, { owners: filter.owners, tags: ["common", "third"], type: "event" }, PAGE);
      expect(page).toHaveLength(40);
      const plan = await planOfSent(recording.pool, recording.sent, "select");
      // Merge joins of index scans in id order stream under the limit; a sort or a hash would read every row first.
      // Several owners' pages are each planned for their owner: a small owner's (a thousand entries here) may be hashed.
      const nodeTypes = filter.owners !== null && filter.owners.length > 1 ? /^$/ : /^(Sort|Hash|Hash Join|Materialize)$/;
      expect(wholeTableWork(plan, { nodeTypes, tables: /^data_entr/ }), JSON.stringify(plan, null, 1)).toEqual([]);
    });
  }
});
