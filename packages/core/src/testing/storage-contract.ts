import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BUILT_IN_ROLES } from "../domain/resources.js";
import type { Storage } from "../ports/storage.js";
import type { MigrationSpec } from "../ports/migration-spec.js";
import { coreMigrations } from "../storage/migrations/core-migrations.js";
import { fetchIdPage } from "../platform/storage/paginate-by-id.js";
import { toBool } from "../ports/storage-schema.js";

/** Cases an adapter may opt out of, by name, when its engine lacks the capability. */
export type StorageContractCase = "concurrent-consume" | "concurrent-increment";

export interface StorageContractOptions {
  /** Cases this adapter does not run, each with a reason in the adapter's test. */
  readonly skip?: readonly StorageContractCase[];
}

const T0 = "2026-03-01T10:00:00.000Z";

function account(id: string, username: string, createdAt = T0) {
  return {
    id,
    username,
    domain: null,
    acct_key: username.toLowerCase(),
    display_name: "",
    note: "",
    actor_type: "Person",
    locked: false,
    discoverable: true,
    uri: null,
    url: null,
    created_at: createdAt,
    updated_at: createdAt,
    suspended_at: null,
    silenced_at: null,
  };
}

function secret(id: string, secretHash: string, expiresAt: string, kind = "test.code") {
  return {
    id,
    kind,
    secret_hash: secretHash,
    subject_id: "us_x",
    payload: JSON.stringify({ n: 1 }),
    expires_at: expiresAt,
    consumed_at: null,
    created_at: T0,
  };
}

/**
 * The storage port's contract. Every adapter runs it: `factory` must return a
 * storage on an empty database each time it is called.
 */
export function describeStorageContract(
  name: string,
  factory: () => Promise<Storage> | Storage,
  options: StorageContractOptions = {},
): void {
  const runs = (testCase: StorageContractCase) => !options.skip?.includes(testCase);

  describe(`storage contract: ${name}`, () => {
    let storage: Storage;

    beforeEach(async () => {
      storage = await factory();
      await storage.migrate(coreMigrations);
    });

    afterEach(async () => {
      await storage.close();
    });

    it("applies each migration once; a second run applies nothing", async () => {
      const again = await storage.migrate(coreMigrations);
      expect(again.applied).toEqual([]);
    });

    it("applies a migration appended to the list, as a module's would be", async () => {
      const appended: MigrationSpec = {
        name: "9000_contract_notes",
        tables: [{ name: "contract_notes", columns: { id: { type: "text" }, done: { type: "bool", default: false } }, primaryKey: ["id"] }],
        rows: () => [{ table: "contract_notes", values: { id: "n1", done: true } }],
      };
      expect((await storage.migrate([...coreMigrations, appended])).applied).toEqual(["9000_contract_notes"]);
      const notes = await sql<{ id: string; done: unknown }>`SELECT id, done FROM contract_notes`.execute(storage.db);
      expect(notes.rows.map((row) => ({ id: row.id, done: toBool(row.done as number | boolean) }))).toEqual([{ id: "n1", done: true }]);
    });

    it("refuses a list whose names are not in the order it runs them", async () => {
      const [first, second, ...rest] = coreMigrations;
      if (!first || !second) throw new Error("core has migrations");
      await expect(storage.migrate([second, first, ...rest])).rejects.toThrow(/does not sort after/);
      await expect(storage.migrate([...coreMigrations, first])).rejects.toThrow(/listed twice/);
    });

    it("takes modules in any order, each module's migrations in its own", async () => {
      const table = (name: string): MigrationSpec => ({
        name,
        tables: [{ name: name.replace(/\W/g, "_").toLowerCase(), columns: { id: { type: "text" } }, primaryKey: ["id"] }],
      });
      const later = [table("zeta_0001_first"), table("alpha_0001_first"), table("alpha_0002_second")];
      expect((await storage.migrate([...coreMigrations, ...later])).applied).toEqual([
        "alpha_0001_first",
        "alpha_0002_second",
        "zeta_0001_first",
      ]);
      await expect(storage.migrate([...coreMigrations, table("beta_0002_second"), table("beta_0001_first")])).rejects.toThrow(
        /beta_0001_first follows beta_0002_second/,
      );
      // A module named with an underscore is one owner too, whatever other modules sit between its migrations.
      const underscored = [table("gamma_ray_0001_first"), table("delta_0001_first"), table("gamma_ray_0002_second")];
      expect((await storage.migrate([...coreMigrations, ...later, ...underscored])).applied).toEqual([
        "delta_0001_first",
        "gamma_ray_0001_first",
        "gamma_ray_0002_second",
      ]);
    });

    it("seeds the built-in roles with their permissions", async () => {
      const roles = await storage.db.selectFrom("roles").selectAll().orderBy("name").execute();
      expect(roles.map((role) => role.name).sort()).toEqual(BUILT_IN_ROLES.map((role) => role.name).sort());
      expect(roles.every((role) => toBool(role.built_in) && role.scope === "global")).toBe(true);
      const owner = roles.find((role) => role.name === "Owner");
      const grants = await storage.db
        .selectFrom("role_permissions")
        .selectAll()
        .where("role_id", "=", owner?.id ?? "")
        .execute();
      expect(grants.length).toBe(BUILT_IN_ROLES.find((role) => role.name === "Owner")?.permissions.length);
      expect(JSON.parse(grants[0]?.access ?? "[]")).toEqual(["Read", "Add", "Modify", "Delete"]);
    });

    it("reads back timestamps as the same ISO strings, booleans and JSON text as written", async () => {
      await storage.db
        .insertInto("accounts")
        .values({ ...account("us_a", "Alice"), locked: true, discoverable: false })
        .execute();
      await storage.db
        .insertInto("instance_settings")
        .values({ key: "k", value: JSON.stringify({ a: [1, "b"] }), updated_at: T0 })
        .execute();
      const row = await storage.db.selectFrom("accounts").selectAll().where("id", "=", "us_a").executeTakeFirstOrThrow();
      expect(row.created_at).toBe(T0);
      expect(toBool(row.locked)).toBe(true);
      expect(toBool(row.discoverable)).toBe(false);
      expect(row.domain).toBeNull();
      const setting = await storage.db.selectFrom("instance_settings").selectAll().executeTakeFirstOrThrow();
      expect(typeof setting.value).toBe("string");
      expect(JSON.parse(setting.value)).toEqual({ a: [1, "b"] });
    });

    it("orders and compares timestamps by time", async () => {
      await storage.db
        .insertInto("accounts")
        .values(account("us_1", "one", "2026-03-01T10:00:00.500Z"))
        .execute();
      await storage.db
        .insertInto("accounts")
        .values(account("us_2", "two", "2026-03-01T09:59:59.999Z"))
        .execute();
      const later = await storage.db.selectFrom("accounts").select("id").where("created_at", ">", "2026-03-01T10:00:00.000Z").execute();
      expect(later.map((row) => row.id)).toEqual(["us_1"]);
      const ordered = await storage.db.selectFrom("accounts").select("id").orderBy("created_at").execute();
      expect(ordered.map((row) => row.id)).toEqual(["us_2", "us_1"]);
    });

    it("enforces unique keys", async () => {
      await storage.db.insertInto("accounts").values(account("us_a", "alice")).execute();
      await expect(storage.db.insertInto("accounts").values(account("us_b", "alice")).execute()).rejects.toThrow();
    });

    it("enforces foreign keys and cascades deletes", async () => {
      await expect(
        storage.db
          .insertInto("users")
          .values({
            account_id: "us_missing",
            email: "x@example.com",
            email_confirmed_at: null,
            password_hash: null,
            approved: true,
            disabled_at: null,
            locale: null,
            created_at: T0,
            updated_at: T0,
          })
          .execute(),
      ).rejects.toThrow();
      await storage.db.insertInto("accounts").values(account("us_a", "alice")).execute();
      await storage.db
        .insertInto("users")
        .values({
          account_id: "us_a",
          email: "a@example.com",
          email_confirmed_at: null,
          password_hash: null,
          approved: true,
          disabled_at: null,
          locale: null,
          created_at: T0,
          updated_at: T0,
        })
        .execute();
      await storage.db.deleteFrom("accounts").where("id", "=", "us_a").execute();
      expect(await storage.db.selectFrom("users").selectAll().execute()).toEqual([]);
    });

    it("commits a transaction's writes together", async () => {
      await storage.transaction(async (trx) => {
        await trx.insertInto("accounts").values(account("us_a", "alice")).execute();
        await trx.insertInto("accounts").values(account("us_b", "bob")).execute();
      });
      expect((await storage.db.selectFrom("accounts").select("id").execute()).length).toBe(2);
    });

    it("rolls back every write of a transaction that throws", async () => {
      await expect(
        storage.transaction(async (trx) => {
          await trx.insertInto("accounts").values(account("us_a", "alice")).execute();
          throw new Error("abort");
        }),
      ).rejects.toThrow("abort");
      expect(await storage.db.selectFrom("accounts").select("id").execute()).toEqual([]);
    });

    it("commits together the statements a transaction is given at once, and answers each its own", async () => {
      const names = await storage.transaction(
        async (trx) => {
          const inserted = await Promise.all(
            ["alice", "bob", "carol"].map((name, i) =>
              trx
                .insertInto("accounts")
                .values(account(`us_${i}`, name))
                .returning("username")
                .executeTakeFirstOrThrow(),
            ),
          );
          // A read given after them sees them, as in any transaction.
          const seen = await trx.selectFrom("accounts").select("id").execute();
          return { inserted: inserted.map((row) => row.username), seen: seen.length };
        },
        { concurrentStatements: true },
      );
      expect(names).toEqual({ inserted: ["alice", "bob", "carol"], seen: 3 });
      expect((await storage.db.selectFrom("accounts").select("id").orderBy("id").execute()).map((row) => row.id)).toEqual([
        "us_0",
        "us_1",
        "us_2",
      ]);
    });

    it("rolls back all the statements given at once when one of them fails, and keeps answering afterwards", async () => {
      await storage.db.insertInto("accounts").values(account("us_taken", "taken")).execute();
      const outcomes: string[] = [];
      await expect(
        storage.transaction(
          async (trx) => {
            const settled = await Promise.allSettled([
              trx.insertInto("accounts").values(account("us_a", "alice")).execute(),
              trx.insertInto("accounts").values(account("us_taken", "again")).execute(),
              trx.insertInto("accounts").values(account("us_b", "bob")).execute(),
            ]);
            outcomes.push(...settled.map((outcome) => outcome.status));
            const failed = settled.find((outcome) => outcome.status === "rejected");
            if (failed) throw failed.reason;
          },
          { concurrentStatements: true },
        ),
      ).rejects.toThrow();
      // The duplicate key fails; where the statements went out together, the one after it fails with it.
      expect(outcomes[1]).toBe("rejected");
      expect((await storage.db.selectFrom("accounts").select("id").execute()).map((row) => row.id)).toEqual(["us_taken"]);
      await storage.transaction(async (trx) => {
        await trx.insertInto("accounts").values(account("us_c", "carol")).execute();
        await trx.insertInto("accounts").values(account("us_d", "dave")).execute();
      });
      expect((await storage.db.selectFrom("accounts").select("id").orderBy("id").execute()).map((row) => row.id)).toEqual([
        "us_c",
        "us_d",
        "us_taken",
      ]);
    });

    it("consumes a one-time secret exactly once, and never an expired one or one of another kind", async () => {
      await storage.db
        .insertInto("one_time_secrets")
        .values(secret("sc_1", "h1", "2026-03-01T11:00:00.000Z"))
        .execute();
      await storage.db
        .insertInto("one_time_secrets")
        .values(secret("sc_2", "h2", "2026-03-01T10:30:00.000Z"))
        .execute();
      const now = new Date("2026-03-01T10:45:00.000Z");
      expect(await storage.consumeOnce({ kind: "other.kind", secretHash: "h1", now })).toBeNull();
      const first = await storage.consumeOnce({ kind: "test.code", secretHash: "h1", now });
      expect(first?.id).toBe("sc_1");
      expect(first?.subject_id).toBe("us_x");
      expect(JSON.parse(first?.payload ?? "null")).toEqual({ n: 1 });
      expect(await storage.consumeOnce({ kind: "test.code", secretHash: "h1", now })).toBeNull();
      expect(await storage.consumeOnce({ kind: "test.code", secretHash: "h2", now })).toBeNull();
      expect(await storage.consumeOnce({ kind: "test.code", secretHash: "unknown", now })).toBeNull();
    });

    it.runIf(runs("concurrent-consume"))("lets only one of many concurrent consumers have a secret", async () => {
      await storage.db
        .insertInto("one_time_secrets")
        .values(secret("sc_1", "h1", "2026-03-01T11:00:00.000Z"))
        .execute();
      const now = new Date("2026-03-01T10:00:00.000Z");
      const results = await Promise.all(
        Array.from({ length: 12 }, () => storage.consumeOnce({ kind: "test.code", secretHash: "h1", now })),
      );
      expect(results.filter((result) => result !== null).length).toBe(1);
    });

    it("keeps two transactions open at once apart: side by side where it says so, else one after the other", async () => {
      let release = () => {};
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      let firstEnded = false;
      let secondEnded = false;
      const first = storage
        .transaction(async (trx) => {
          await trx.insertInto("accounts").values(account("us_1", "first")).execute();
          await gate;
        })
        .then(() => {
          firstEnded = true;
        });
      const second = storage
        .transaction(async (trx) => {
          await trx.insertInto("accounts").values(account("us_2", "second")).execute();
        })
        .then(() => {
          secondEnded = true;
        });
      if (storage.capabilities.concurrentTransactions) {
        // Committed while the first is still open.
        await second;
        expect(firstEnded).toBe(false);
      } else {
        // Waits for the first to end: it cannot end before the first is let go.
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(secondEnded).toBe(false);
      }
      release();
      await Promise.all([first, second]);
      const ids = await storage.db.selectFrom("accounts").select("id").orderBy("id").execute();
      expect(ids.map((row) => row.id)).toEqual(["us_1", "us_2"]);
    });

    it("counts hits in a window and starts a new window when it ends", async () => {
      const start = new Date("2026-03-01T10:00:00.000Z");
      expect((await storage.incrementCounter("login:1.2.3.4", 60, start)).count).toBe(1);
      expect((await storage.incrementCounter("login:1.2.3.4", 60, new Date(start.getTime() + 1_000))).count).toBe(2);
      const third = await storage.incrementCounter("login:1.2.3.4", 60, new Date(start.getTime() + 59_000));
      expect(third.count).toBe(3);
      expect(third.windowEndsAt.toISOString()).toBe("2026-03-01T10:01:00.000Z");
      expect((await storage.incrementCounter("login:other", 60, start)).count).toBe(1);
      const fresh = await storage.incrementCounter("login:1.2.3.4", 60, new Date(start.getTime() + 60_000));
      expect(fresh.count).toBe(1);
      expect(fresh.windowEndsAt.toISOString()).toBe("2026-03-01T10:02:00.000Z");
    });

    it.runIf(runs("concurrent-increment"))("counts every one of many concurrent hits once", async () => {
      const now = new Date("2026-03-01T10:00:00.000Z");
      const results = await Promise.all(Array.from({ length: 20 }, () => storage.incrementCounter("burst", 60, now)));
      expect(results.map((result) => result.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    });

    it("pages an id-ordered list with max_id, since_id and min_id", async () => {
      for (let i = 1; i <= 7; i++)
        await storage.db
          .insertInto("accounts")
          .values(account(`us_${i}`, `user${i}`))
          .execute();
      const query = storage.db.selectFrom("accounts").select("id");
      const ids = async (page: Parameters<typeof fetchIdPage>[2]) => (await fetchIdPage(query, "id", page)).map((row) => row.id);
      expect(await ids({ limit: 3 })).toEqual(["us_7", "us_6", "us_5"]);
      expect(await ids({ limit: 3, maxId: "us_5" })).toEqual(["us_4", "us_3", "us_2"]);
      expect(await ids({ limit: 3, sinceId: "us_2" })).toEqual(["us_7", "us_6", "us_5"]);
      expect(await ids({ limit: 3, minId: "us_2" })).toEqual(["us_5", "us_4", "us_3"]);
      expect(await ids({ limit: 10, maxId: "us_6", sinceId: "us_3" })).toEqual(["us_5", "us_4"]);
    });

    it("describes its schema: tables, columns, keys and indexes", async () => {
      const schema = await storage.describeSchema();
      const accounts = schema.tables.find((table) => table.name === "accounts");
      expect(accounts?.primaryKey).toEqual(["id"]);
      expect(accounts?.columns.find((column) => column.name === "domain")?.nullable).toBe(true);
      expect(accounts?.columns.find((column) => column.name === "username")?.nullable).toBe(false);
      expect(accounts?.indexes.find((index) => index.name === "accounts_acct_key_idx")).toEqual({
        name: "accounts_acct_key_idx",
        unique: true,
        columns: ["acct_key"],
        where: null,
      });
      expect(schema.tables.some((table) => table.name.startsWith("kysely_"))).toBe(false);
    });

    it("reports its engine and version, and answers a ping", async () => {
      const info = await storage.info();
      expect(info.engine).toBe(storage.capabilities.engine);
      expect(info.version).toMatch(/^\d+\.\d+/);
      await expect(storage.ping()).resolves.toBeUndefined();
      const { rows } = await sql<{ one: number }>`SELECT 1 AS one`.execute(storage.db);
      expect(Number(rows[0]?.one)).toBe(1);
    });
  });
}
