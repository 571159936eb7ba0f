import type { KyselyPlugin } from "kysely";
import type { Storage } from "../ports/storage.js";

export interface StorageFaults {
  /** From now on, every query fails. */
  break(): void;
  /** Queries work again. */
  heal(): void;
}

/**
 * The storage as the queue sees it, with a switch that makes every query
 * fail (as when the database is unreachable), for the contract's recovery case.
 */
export function withStorageFaults(storage: Storage): { storage: Storage; faults: StorageFaults } {
  let broken = false;
  const plugin: KyselyPlugin = {
    transformQuery(args) {
      if (broken) throw new Error("The database is unavailable (an injected fault)");
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  const db = storage.db.withPlugin(plugin);
  const faulty: Storage = {
    db,
    capabilities: storage.capabilities,
    transaction: (work) => db.transaction().execute(work),
    migrate: (migrations) => storage.migrate(migrations),
    consumeOnce: (input) => storage.consumeOnce(input),
    incrementCounter: (key, windowSeconds, now) => storage.incrementCounter(key, windowSeconds, now),
    describeSchema: () => storage.describeSchema(),
    info: () => storage.info(),
    ping: () => storage.ping(),
    close: () => storage.close(),
  };
  return {
    storage: faulty,
    faults: {
      break: () => {
        broken = true;
      },
      heal: () => {
        broken = false;
      },
    },
  };
}
