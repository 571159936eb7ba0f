import type { Kysely } from "kysely";
import type {
  ConsumeOnceInput,
  CounterState,
  MigrationReport,
  SchemaDescription,
  Storage,
  StorageCapabilities,
  StorageInfo,
  TransactionOptions,
} from "../../ports/storage.js";
import type { Dialect, MigrationSpec } from "../../ports/migration-spec.js";
import { consumeOnceByUpdate, incrementCounterByUpsert } from "./atomic-statements.js";
import { transactionWithCommitHooks } from "./commit-hooks.js";
import { registerStorageHandle } from "./storage-handles.js";
import { applyMigrations } from "../../storage/migrator.js";
import type { Database, OneTimeSecretRow } from "../../ports/storage-schema.js";

/**
 * What every SQL adapter shares once it has a Kysely database: transactions,
 * migrations, the single-statement atomic primitives. An adapter adds what
 * only its engine knows (schema description, size, version, closing).
 */
export abstract class KyselyStorage implements Storage {
  abstract readonly capabilities: StorageCapabilities;

  constructor(
    readonly db: Kysely<Database>,
    /** The engine the migrations are rendered for. */
    private readonly dialect: Dialect,
  ) {
    registerStorageHandle(db, this);
  }

  /** A transaction's handle runs its statements one after another, whatever the options: Kysely's own. */
  transaction<T>(work: (trx: Kysely<Database>) => Promise<T>, _options?: TransactionOptions): Promise<T> {
    return transactionWithCommitHooks((inner) => this.db.transaction().execute(inner), work);
  }

  migrate(migrations: readonly MigrationSpec[]): Promise<MigrationReport> {
    return applyMigrations(this.db, migrations, this.dialect);
  }

  consumeOnce(input: ConsumeOnceInput): Promise<OneTimeSecretRow | null> {
    return consumeOnceByUpdate(this.db, input);
  }

  incrementCounter(key: string, windowSeconds: number, now: Date): Promise<CounterState> {
    return incrementCounterByUpsert(this.db, key, windowSeconds, now);
  }

  abstract describeSchema(): Promise<SchemaDescription>;
  abstract info(): Promise<StorageInfo>;
  abstract ping(): Promise<void>;
  abstract close(): Promise<void>;
}
