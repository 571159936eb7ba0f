import type { Kysely } from "kysely";
import type { Database } from "../../ports/storage-schema.js";
import { capabilitiesOf } from "./storage-handles.js";

/** A kind of read that several callers can have answered by one statement. */
export interface JoinedReadKind<A, R> {
  /** Reads one statement joins at most: each number of them is a shape of its own, compiled once. */
  readonly perStatement: number;
  /** Reads that may share a statement have the same group (the parts of their shape that cannot be a row's values). */
  group(args: A): string;
  /** One read alone, as it is answered where reads are not joined. */
  one(db: Kysely<Database>, args: A): Promise<R>;
  /** Two reads or more of one group, each answer in its read's place. */
  many(db: Kysely<Database>, args: readonly A[]): Promise<R[]>;
}

/**
 * Where each statement is a round trip to a database server
 * (`StorageCapabilities.serverRoundTrips`), reads of one kind asked of the
 * database (not of a transaction, which keeps its own order) in the same turn
 * of the event loop go out as one statement: a busy server asks several at
 * once, and each statement's write wakes the database server's process, which
 * on a small machine shares the cores with Kith. Elsewhere (SQLite answers in
 * the process) each read is its own statement, as no joining was measured to
 * pay there.
 */
export function joinedReads<A, R>(kind: JoinedReadKind<A, R>): (db: Kysely<Database>, args: A) => Promise<R> {
  /** The reads waiting for the next turn, per database handle and group. */
  const waitingByHandle = new WeakMap<Kysely<Database>, Map<string, WaitingRead<A, R>[]>>();
  return (db, args) => {
    if (db.isTransaction || !capabilitiesOf(db)?.serverRoundTrips) return kind.one(db, args);
    return new Promise((resolve, reject) => {
      let groups = waitingByHandle.get(db);
      if (!groups) {
        const waiting = new Map<string, WaitingRead<A, R>[]>();
        waitingByHandle.set(db, waiting);
        setImmediate(() => {
          waitingByHandle.delete(db);
          for (const reads of waiting.values()) answer(db, kind, reads);
        });
        groups = waiting;
      }
      const group = kind.group(args);
      let reads = groups.get(group);
      if (!reads) {
        reads = [];
        groups.set(group, reads);
      }
      reads.push({ args, resolve, reject });
    });
  };
}

interface WaitingRead<A, R> {
  readonly args: A;
  readonly resolve: (answer: R) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Answers the waiting reads of one group, `perStatement` a statement. The statements go out at once, not one after
 * another: a thousand reads (a status shown to a thousand open streams) then spread over the pool's connections, and
 * the database server's cores, as the reads alone would.
 */
function answer<A, R>(db: Kysely<Database>, kind: JoinedReadKind<A, R>, waiting: readonly WaitingRead<A, R>[]): void {
  for (let start = 0; start < waiting.length; start += kind.perStatement)
    void answerTogether(db, kind, waiting.slice(start, start + kind.perStatement));
}

async function answerTogether<A, R>(db: Kysely<Database>, kind: JoinedReadKind<A, R>, reads: readonly WaitingRead<A, R>[]): Promise<void> {
  try {
    const [first] = reads;
    const answers =
      reads.length === 1 && first
        ? [await kind.one(db, first.args)]
        : await kind.many(
            db,
            reads.map((read) => read.args),
          );
    for (const [i, read] of reads.entries()) read.resolve(answers[i] as R);
  } catch (error) {
    for (const read of reads) read.reject(error);
  }
}
