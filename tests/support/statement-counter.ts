/**
 * Counting the SQL statements a request sends, for the tests that bound them
 * (no N+1 on reads, no reads back of a new post). Every result is counted,
 * since a statement compiled once is run many times without being built again.
 */
import type { Storage } from "@kith/core";
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from "kysely";

export class StatementCounter implements KyselyPlugin {
  count = 0;
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    this.count++;
    return args.result;
  }
}

/** `inner` with every statement counted (or seen by another plugin), those run in its transactions included. */
export function countedStorage(inner: Storage, counter: KyselyPlugin): Storage {
  const db = inner.db.withPlugin(counter);
  const transaction: Storage["transaction"] = (work, options) => inner.transaction((trx) => work(trx.withPlugin(counter)), options);
  return new Proxy(inner, {
    get(target, property) {
      if (property === "db") return db;
      if (property === "transaction") return transaction;
      const value = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
