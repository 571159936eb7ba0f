import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

// Canary of what `begin-with-first-statement.ts` and `pipelined-statements.ts` rely on in pg 8 beyond its documented
// API (docs/optimisations.md). A failure here means a pg release changed it: turn the speed-up off
// (`beginWithFirstStatement: false`, `pipelining: false`; KITH_OPTIMISATIONS_OFF for the server) and adapt it.

// The ProvidedContext keys are declared in contract.test.ts.
const serverUrl = inject("postgresUrl") ?? null;

/** A pg internal, or undefined: read through `unknown`, as the speed-ups read it. */
function member(of: unknown, name: string): unknown {
  return (of as Record<string, unknown>)[name];
}

describe("pg's query protocol methods, which begin-with-first-statement.ts extends", () => {
  it("has Query.requiresPreparation, prepare and handleCommandComplete", () => {
    for (const name of ["requiresPreparation", "prepare", "handleCommandComplete"])
      expect(typeof member(pg.Query.prototype, name), `pg.Query.prototype.${name}`).toBe("function");
  });
});

describe.skipIf(serverUrl === null)("pg's client internals on a real connection", () => {
  let client: pg.Client;

  beforeAll(async () => {
    client = new pg.Client({ connectionString: serverUrl ?? "" });
    await client.connect();
  });

  afterAll(async () => {
    await client?.end();
  });

  const connection = (): unknown => member(client, "connection");

  it("writes the extended protocol's messages through connection.parse, bind and execute", () => {
    for (const name of ["parse", "bind", "execute"]) expect(typeof member(connection(), name), `connection.${name}`).toBe("function");
  });

  it("marks a named statement in connection.parsedStatements once it has run", async () => {
    const parsed = member(connection(), "parsedStatements") as Record<string, unknown>;
    expect(typeof parsed).toBe("object");
    expect(parsed.kith_canary).toBeUndefined();
    await client.query({ name: "kith_canary", text: "select $1::int as n", values: [1] });
    expect(parsed.kith_canary).toBe("select $1::int as n");
  });

  it("runs a Parse, Bind and Execute of `begin` written ahead of a query's own, in one transaction", async () => {
    // The same extension as StatementAfterBegin, written against pg's methods here so that a change shows in pg's terms.
    type Protocol = { parse(c: object): void; bind(c: object): void; execute(c: object): void };
    type Extendable = new (config: pg.QueryConfig) => pg.Query & {
      requiresPreparation(): boolean;
      prepare(connection: Protocol): void;
      handleCommandComplete(message: unknown, connection: Protocol): void;
    };
    const Base = pg.Query as unknown as Extendable;
    let completions = 0;
    class AfterBegin extends Base {
      override requiresPreparation(): boolean {
        return true;
      }
      override prepare(connection: Protocol): void {
        connection.parse({ text: "begin" });
        connection.bind({});
        connection.execute({ portal: "" });
        super.prepare(connection);
      }
      override handleCommandComplete(message: unknown, connection: Protocol): void {
        completions++;
        if (completions > 1) super.handleCommandComplete(message, connection);
      }
    }
    const result = await new Promise<pg.QueryResult>((resolve, reject) => {
      const query = new AfterBegin({ text: "select now() = statement_timestamp() as fresh, txid_current_if_assigned() is null as none" });
      query.on("end", resolve);
      query.on("error", reject);
      client.query(query as unknown as pg.Submittable);
    });
    // Two completions (begin's, then the statement's), and the statement's rows alone in the result.
    expect(completions).toBe(2);
    expect(result.rows).toHaveLength(1);
    // Inside the transaction `begin` opened: a later statement sees the transaction's start time, not its own.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const later = await client.query("select now() = statement_timestamp() as fresh");
    expect(later.rows[0]?.fresh).toBe(false);
    await client.query("rollback");
  });

  it("pipelines the queries queued while client.pipeline is set, and reads the setting per query", async () => {
    expect(member(client, "pipeline")).toBe(false);
    const stream = member(connection(), "stream") as { cork?: unknown; uncork?: unknown };
    expect(typeof stream.cork, "connection.stream.cork").toBe("function");
    expect(typeof stream.uncork, "connection.stream.uncork").toBe("function");
    (client as unknown as { pipeline: boolean }).pipeline = true;
    try {
      // Out of pipeline mode pg sends one query and waits for its answer; in it, each goes on the wire as it is given.
      const sent: number[] = [];
      const first = client.query("select 1 as n").then(() => sent.push(1));
      const second = client.query("select 2 as n").then(() => sent.push(2));
      const queued = member(client, "_queryQueue") as unknown[] | undefined;
      // pg keeps the queries it has not sent in _queryQueue: in pipeline mode none wait there.
      expect(queued?.length ?? 0).toBe(0);
      await Promise.all([first, second]);
      expect(sent).toEqual([1, 2]);
    } finally {
      (client as unknown as { pipeline: boolean }).pipeline = false;
    }
    // Out of pipeline mode again, a second query waits in the queue behind the first.
    const first = client.query("select 1");
    const second = client.query("select 2");
    expect((member(client, "_queryQueue") as unknown[]).length).toBe(1);
    await Promise.all([first, second]);
  });
});
