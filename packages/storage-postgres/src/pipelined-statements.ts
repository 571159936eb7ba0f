import type { Writable } from "node:stream";
import { CompiledQuery, type DatabaseConnection, type Dialect, type Kysely, type KyselyProps, Transaction } from "kysely";
import type pg from "pg";
import { emptyResult } from "./run-statement.js";
import type { Database } from "@kith/core";

/**
 * A transaction whose statements go out without waiting for each other's
 * answers. Kysely runs a transaction's statements one after another: each
 * waits for the answer to the one before, and each is a write to the
 * database server's socket, which wakes its process. A batch of incoming
 * activities was a round trip per activity that way, though their writes do
 * not depend on each other. Here the batch's writes are given to the handle
 * at once; pg's pipeline mode sends each as soon as it is given, and the
 * statements given in one turn of the event loop leave in one write
 * (the socket is corked until the next turn). PostgreSQL runs them in the
 * order sent, each with its own Sync: a failed one aborts the transaction,
 * and those after it fail too, as they would have one after another.
 *
 * Pipeline mode is a pg client's setting, read whenever a query is queued;
 * it is on from the control statement below until the client goes back to
 * the pool, after the transaction's `commit` or `rollback` is answered. The
 * work must not return with a statement unanswered (`TransactionOptions`).
 * A cursor cannot share a pipeline (pg refuses it): the handle has none to
 * give.
 */

/** What the handle sends to turn pipelining on; the pool's client takes it and sends nothing. */
export const PIPELINE_STATEMENTS = "-- pipeline the statements of this transaction";

/** The parts of a pg client that pipelining sets and writes through (pg 8). */
interface PipelinedClient {
  pipeline: boolean;
  readonly connection: { readonly stream: Writable };
}

/**
 * The pipelining state of one pool client: off, or on from the control
 * statement until the client goes back to the pool. Turning it off sooner,
 * at `commit`, would be wrong with a statement still unanswered: pg, out of
 * pipeline mode, would take the next answer for the `commit`'s.
 */
export class StatementPipeline {
  #on = false;
  #corked = false;

  constructor(private readonly client: pg.PoolClient) {}

  /** Takes the control statement that turns pipelining on; null for any other text. */
  control(text: string, parameters: readonly unknown[]): Promise<pg.QueryResult> | null {
    if (parameters.length > 0 || text !== PIPELINE_STATEMENTS) return null;
    this.#set(true);
    return Promise.resolve(emptyResult(""));
  }

  /**
   * Before a statement is queued: while pipelining, the socket is corked until the next turn, gathering the turn's
   * statements into one write. The transaction's end goes at once: nothing else is given with it.
   */
  sending(text: string): void {
    if (!this.#on || this.#corked || text === "commit" || text === "rollback") return;
    const stream = (this.client as unknown as PipelinedClient).connection.stream;
    stream.cork();
    this.#corked = true;
    setImmediate(() => {
      this.#corked = false;
      stream.uncork();
    });
  }

  /** The client goes back to the pool, its transaction answered: pipelining ends with it. */
  released(): void {
    if (this.#on) this.#set(false);
  }

  #set(on: boolean): void {
    this.#on = on;
    (this.client as unknown as PipelinedClient).pipeline = on;
  }
}

/**
 * A handle of `trx`'s transaction on which statements given at once run at
 * once: Kysely's own handle waits for each statement's answer before it
 * gives the connection to the next. Same connection, plugins and compiler;
 * a statement given after the transaction has ended is refused by the
 * transaction's own check.
 */
export async function pipelinedHandle(trx: Kysely<Database>): Promise<Kysely<Database>> {
  const executor = trx.getExecutor();
  const connection = await executor.provideConnection(async (held: DatabaseConnection) => held);
  await connection.executeQuery(CompiledQuery.raw(PIPELINE_STATEMENTS));
  return new Transaction<Database>({
    ...NOT_A_DATABASE,
    executor: executor.withConnectionProvider({ provideConnection: (consumer) => consumer(connection) }),
  });
}

/** Refuses what a transaction's handle may not do. */
function refused(what: string): () => never {
  return () => {
    throw new Error(`A pipelined transaction's handle cannot ${what}`);
  };
}

const NO_DIALECT: Dialect = {
  createDriver: refused("make a driver"),
  createQueryCompiler: refused("make a compiler"),
  createAdapter: refused("make an adapter"),
  createIntrospector: refused("read the schema"),
};

/**
 * What Kysely keeps of a database besides its executor, used only to open transactions and connections, to read
 * the schema and to close the database, none of which a transaction's handle may do.
 */
const NOT_A_DATABASE: Omit<KyselyProps, "executor"> = {
  config: { dialect: NO_DIALECT },
  dialect: NO_DIALECT,
  driver: {
    init: refused("open a database"),
    acquireConnection: refused("open a connection"),
    beginTransaction: refused("begin a transaction"),
    commitTransaction: refused("commit"),
    rollbackTransaction: refused("roll back"),
    releaseConnection: refused("release its connection"),
    destroy: refused("close the database"),
  },
};
