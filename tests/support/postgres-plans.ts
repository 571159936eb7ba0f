import { coreMigrations } from "@kith/core";
import type { Storage } from "@kith/core";
import { createPostgresStorage } from "@kith/storage-postgres";
import { sql } from "kysely";
import pg from "pg";
import { freshPostgresDatabase } from "./real-servers.js";

/** One plan node of PostgreSQL's `EXPLAIN (FORMAT JSON)`, with the fields the plan tests read. */
export interface PlanNode {
  readonly "Node Type": string;
  readonly "Relation Name"?: string;
  readonly "Index Name"?: string;
  readonly "Parent Relationship"?: string;
  readonly Filter?: string;
  readonly "Join Filter"?: string;
  readonly Plans?: readonly PlanNode[];
}

/** The node and every node below it. */
export function nodesOf(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodesOf)];
}

/** The top node of what `EXPLAIN (FORMAT JSON)` answered, whether the driver parsed the JSON or left it as text. */
export function planOf(explained: unknown): PlanNode {
  const document = typeof explained === "string" ? (JSON.parse(explained) as unknown) : explained;
  const plan = (document as readonly { Plan?: PlanNode }[] | undefined)?.[0]?.Plan;
  if (!plan) throw new Error(`no plan in ${JSON.stringify(explained)}`);
  return plan;
}

/** A statement as the storage adapter gave it to pg. */
export interface SentStatement {
  readonly text: string;
  readonly values?: readonly unknown[];
}

/** A pool that keeps every statement sent through it, for a test to explain it with the values it was sent with. */
export function recordingPool(url: string, max: number): { pool: pg.Pool; sent: SentStatement[] } {
  const pool = new pg.Pool({ connectionString: url, max });
  const sent: SentStatement[] = [];
  pool.on("connect", (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const config = args[0];
      if (typeof config === "object" && config !== null && "text" in config) sent.push(config as SentStatement);
      return query(...args);
    };
  });
  return { pool, sent };
}

/** The plan of the last statement of `sent` that starts with `start`, explained with the values it was sent with. */
export async function planOfSent(pool: pg.Pool, sent: readonly SentStatement[], start: string): Promise<PlanNode> {
  const statement = sent.findLast((candidate) => candidate.text.startsWith(start));
  if (!statement) throw new Error(`no statement starting with ${start}`);
  const { rows } = await pool.query<{ "QUERY PLAN": unknown }>({
    text: `explain (format json) ${statement.text}`,
    values: [...(statement.values ?? [])],
  });
  return planOf(rows[0]?.["QUERY PLAN"]);
}

/** Accounts `a1`..`a<authors>` and `reader`, who follows them all. */
export async function seedReaderFollowing(db: Storage["db"], reader: string, authors: number, now: string): Promise<void> {
  await sql`insert into accounts (id, username, acct_key, created_at, updated_at)
    select 'a' || n, 'a' || n, 'a' || n, ${now}, ${now} from generate_series(0, ${authors}) n`.execute(db);
  await sql`update accounts set id = ${reader}, username = ${reader}, acct_key = ${reader} where id = 'a0'`.execute(db);
  await sql`insert into follows (id, account_id, target_account_id, follower_local, created_at, updated_at)
    select 'f' || n, ${reader}, 'a' || n, true, ${now}, ${now} from generate_series(1, ${authors}) n`.execute(db);
}

/**
 * The nodes of `plan` that do whole-table work: a node of the types `nodeTypes` matches, a subplan hashed whole,
 * or a sequential scan of one of `tables` (an empty table is scanned whatever the query, so only the named ones).
 */
export function wholeTableWork(plan: PlanNode, { nodeTypes, tables }: { nodeTypes: RegExp; tables: RegExp }): PlanNode[] {
  return nodesOf(plan).filter(
    (node) =>
      nodeTypes.test(node["Node Type"]) ||
      /hashed SubPlan/.test(`${node.Filter ?? ""} ${node["Join Filter"] ?? ""}`) ||
      (node["Node Type"] === "Seq Scan" && tables.test(node["Relation Name"] ?? "")),
  );
}

/** A migrated storage on a database of its own, through a pool that keeps what it sends (`recordingPool`). */
export interface RecordingStorage {
  readonly storage: Storage;
  readonly pool: pg.Pool;
  readonly sent: SentStatement[];
  close(): Promise<void>;
}

export async function recordingStorage(max: number): Promise<RecordingStorage> {
  const database = await freshPostgresDatabase();
  const { pool, sent } = recordingPool(database.url, max);
  const storage = createPostgresStorage({ pool });
  await storage.migrate(coreMigrations);
  return {
    storage,
    pool,
    sent,
    async close() {
      await storage.close();
      await pool.end();
      await database.drop();
    },
  };
}

/**
 * How many runs of the statement prepared on `db`'s connection (a storage of one connection) whose text starts with
 * `start` ran on its generic plan, and how many on a plan made for their values.
 */
export async function planChoices(db: Storage["db"], start: string): Promise<{ generic: number; custom: number }> {
  const { rows } = await sql<{ generic_plans: string; custom_plans: string }>`
    select generic_plans, custom_plans from pg_prepared_statements where statement like ${`${start}%`}`.execute(db);
  if (rows.length !== 1) throw new Error(`${rows.length} prepared statements start with ${start}`);
  return { generic: Number(rows[0]?.generic_plans), custom: Number(rows[0]?.custom_plans) };
}
