import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { runStatement } from "./run-statement.js";
import { postgresTypes } from "./type-parsers.js";

// The ProvidedContext keys are declared in contract.test.ts.
const serverUrl = inject("postgresUrl") ?? null;

describe.skipIf(serverUrl === null)("a statement run through a callback", () => {
  let client: pg.Client;

  beforeAll(async () => {
    client = new pg.Client({ connectionString: serverUrl ?? "" });
    await client.connect();
  });

  afterAll(async () => {
    await client?.end();
  });

  it("answers with the rows, read with the type parsers it is given", async () => {
    const result = await runStatement(client, {
      text: "select $1::text as word, 2::int8 as count, '2026-03-01 10:00:00+00'::timestamptz as at",
      values: ["kith"],
      types: postgresTypes,
    });
    expect(result.rows).toEqual([{ word: "kith", count: 2, at: "2026-03-01T10:00:00.000Z" }]);
  });

  it("runs a named statement again once prepared", async () => {
    const config = { name: "run_statement_twice", text: "select $1::int + 1 as next", values: [1] };
    expect((await runStatement(client, config)).rows).toEqual([{ next: 2 }]);
    expect((await runStatement(client, { ...config, values: [41] })).rows).toEqual([{ next: 42 }]);
  });

  it("rejects with the server's error, and the client goes on", async () => {
    await expect(runStatement(client, { text: "select * from no_such_table" })).rejects.toMatchObject({ code: "42P01" });
    expect((await runStatement(client, { text: "select 1 as one" })).rows).toEqual([{ one: 1 }]);
  });
});
