import type pg from "pg";

/** A statement to run on a client: its text, parameters, name when prepared, and type parsers when the pool is borrowed. */
export type StatementConfig = pg.QueryConfig & { readonly name?: string };

/**
 * Runs `config` on `client`, answered through a callback that pg's query is
 * made with, rather than through pg's promise form, which gives the query its
 * callback after making it. With the promise form much of what a statement
 * allocated (its rows, the strings of their columns) outlived V8's young
 * collections and was kept until the next full one: of the bytes allocated
 * between two young collections, a third survived them with a pool client
 * reading pages of rows that way, almost none with the callback given at
 * once. Each young collection copies what survives, so they took several
 * times longer, in the latency's tail (bench/READING.md, "Measurements
 * behind the code"). Why a callback given later keeps them is not known:
 * replacing the callback of a query already made brings it about, setting the
 * same one again does not.
 */
export function runStatement(client: pg.ClientBase, config: StatementConfig): Promise<pg.QueryResult> {
  return new Promise((resolve, reject) => {
    client.query(config, (error: Error | undefined, result: pg.QueryResult) => (error ? reject(error) : resolve(result)));
  });
}

/**
 * The answer to a statement the client takes itself and does not send: a held-back `begin`, the `commit` or
 * `rollback` of a transaction that sent nothing, the control statement that turns pipelining on.
 */
export function emptyResult(command: string): pg.QueryResult {
  return { command, rowCount: null, oid: 0, fields: [], rows: [] };
}
