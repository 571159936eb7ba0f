import { DummyDriver, Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler } from "kysely";
import { describe, expect, it } from "vitest";
import { literalLimit } from "./literal-limit.js";

/** A handle that only compiles. */
const db = new Kysely<{ posts: { id: string } }>({
  dialect: {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (handle) => new SqliteIntrospector(handle),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  },
});

describe("literalLimit", () => {
  it("writes the limit into the statement's text, binding no value for it", () => {
    const compiled = db.selectFrom("posts").select("id").where("id", "<", "p9").limit(literalLimit(40)).compile();
    expect(compiled.sql).toBe('select "id" from "posts" where "id" < ? limit 40');
    expect(compiled.parameters).toEqual(["p9"]);
  });

  it.each([Number.NaN, -1, 2.5, Number.POSITIVE_INFINITY])("refuses %s, which is no row limit", (limit) => {
    expect(() => literalLimit(limit)).toThrow(RangeError);
  });
});
