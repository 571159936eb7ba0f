import pg from "pg";
import { type StatementConfig, emptyResult, runStatement } from "./run-statement.js";

/**
 * A transaction's `begin` sent with its first statement, in one round trip
 * instead of two. Kysely begins a transaction by running `begin` on its
 * connection and awaiting the answer; a batch of incoming activities on
 * PostgreSQL then spent about a third of its round trips on `begin` and
 * `commit`. The client's state (`TransactionStart`) holds the `begin` back
 * and puts it in front of the next statement, in the same pipeline of the
 * extended protocol: Bind and Execute of `begin`, then the statement's own
 * messages, then one Sync. A transaction that sends nothing before its
 * `commit` or `rollback` sends nothing at all.
 *
 * PostgreSQL runs the messages in order: `begin` opens the transaction that
 * the statement then runs in, as it would after a round trip of its own. An
 * error in the statement leaves the transaction aborted, and Kysely rolls it
 * back as before.
 */

/** The parts of pg's connection the pipeline writes to (pg 8's protocol writers). */
interface ProtocolConnection {
  parse(config: { readonly text: string; readonly name?: string }): void;
  bind(config: Record<string, never>): void;
  execute(config: { readonly portal: string }): void;
  readonly parsedStatements: Readonly<Record<string, string | undefined>>;
}

/** The methods of pg's Query that the pipeline extends (pg 8). */
interface QueryProtocol {
  requiresPreparation(): boolean;
  prepare(connection: ProtocolConnection): void;
  handleCommandComplete(message: unknown, connection: ProtocolConnection): void;
}

type Callback = (error: Error | undefined, result: pg.QueryResult) => void;
type QueryWithProtocol = new (config: pg.QueryConfig & { readonly callback: Callback }) => pg.Query & QueryProtocol;

const ProtocolQuery = pg.Query as unknown as QueryWithProtocol;

/** The statement `begin` runs as: unnamed, parsed anew each time (a parse of five letters). */
const BEGIN = "begin";

class StatementAfterBegin extends ProtocolQuery {
  #begun = false;

  override requiresPreparation(): boolean {
    // `begin` goes out in the extended protocol, so the statement does too, even without parameters.
    return true;
  }

  override prepare(connection: ProtocolConnection): void {
    connection.parse({ text: BEGIN });
    connection.bind({});
    connection.execute({ portal: "" });
    super.prepare(connection);
  }

  override handleCommandComplete(message: unknown, connection: ProtocolConnection): void {
    // The first completion is `begin`'s: the result is the statement's alone.
    if (!this.#begun) {
      this.#begun = true;
      return;
    }
    super.handleCommandComplete(message, connection);
  }
}

/**
 * The transaction state of one pool client: whether Kysely began a
 * transaction that has not been sent yet. `run` sends a statement, with the
 * held-back `begin` in front of it when there is one.
 */
export class TransactionStart {
  #held = false;

  constructor(private readonly client: pg.PoolClient) {}

  /** Kysely's `begin`, `commit` and `rollback` as this state answers them, or null for any other text. */
  control(text: string, parameters: readonly unknown[]): Promise<pg.QueryResult> | null {
    if (parameters.length > 0) return null;
    if (text === BEGIN) {
      this.#held = true;
      return Promise.resolve(emptyResult("BEGIN"));
    }
    if (this.#held && (text === "commit" || text === "rollback")) {
      this.#held = false;
      return Promise.resolve(emptyResult(text.toUpperCase()));
    }
    return null;
  }

  /** Sends `config`, after the held-back `begin` if there is one. */
  run(config: StatementConfig): Promise<pg.QueryResult> {
    if (!this.#held) return runStatement(this.client, config);
    this.#held = false;
    const connection = (this.client as unknown as { readonly connection: ProtocolConnection }).connection;
    // The first ParseComplete of the pipeline, `begin`'s, would mark a named statement parsed before its own Parse
    // was answered: a named statement new to this connection waits for a `begin` of its own.
    if (config.name !== undefined && connection.parsedStatements[config.name] === undefined)
      return runStatement(this.client, { text: BEGIN }).then(() => runStatement(this.client, config));
    return new Promise((resolve, reject) => {
      const query = new StatementAfterBegin({
        ...config,
        callback: (error, result) => (error ? reject(error) : resolve(result)),
      });
      this.client.query(query);
    });
  }

  /** Sends the held-back `begin` on its own, ahead of something that cannot carry it (a cursor). */
  flush(): void {
    if (!this.#held) return;
    this.#held = false;
    // pg sends a client's queries in the order given: the cursor queued next runs inside the transaction, and fails
    // with the same error should `begin` fail.
    runStatement(this.client, { text: BEGIN }).catch(() => {});
  }

  /** Forgets a held-back `begin` when the client goes back to the pool. */
  released(): void {
    this.#held = false;
  }
}
