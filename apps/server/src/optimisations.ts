import type { KithConfigInput } from "@kith/core";

/**
 * The speed-ups that rely on what a dependency does inside without promising
 * it (docs/optimisations.md), by the name `KITH_OPTIMISATIONS_OFF` turns each
 * off with. Should a release of Fedify, pg or Node change what one relies on,
 * the server runs on without it until Kith catches up.
 */
export const OPTIMISATIONS = {
  "inbox-front": "Verify and dispatch inbox POSTs signed by a key Fedify cached without Fedify's inbox handler",
  "compact-activities": "Read common activities from their compact JSON without Fedify's JSON-LD parse",
  "batch-delivery": "Queue one send's deliveries as batch jobs of Fedify's outbox messages, signed by Kith",
  "kv-memory": "Keep Fedify's cached public keys and signature forms in memory for a minute",
  "pg-begin-with-first-statement": "PostgreSQL: send a transaction's begin with its first statement (pg's protocol methods)",
  "pg-pipelining": "PostgreSQL: pipeline a transaction's batched writes (pg's pipeline mode)",
  "v8-no-pretenuring": "Turn off V8's allocation-site pretenuring (--no-allocation-site-pretenuring)",
  "v8-settle-memory": "Shrink V8's young generation once the server idles after start (V8's gc() through --expose-gc)",
  // Read by the build (tsup.shared.ts), not by the server: named here so that one value serves both.
  "zod-rewrite": "Build: leave Zod's translations out of core's bundle and write its source in Latin-1",
} as const;

export type OptimisationName = keyof typeof OPTIMISATIONS;

/** Which optimisations are on: all but those `KITH_OPTIMISATIONS_OFF` names. */
export class Optimisations {
  constructor(private readonly off: ReadonlySet<OptimisationName> = new Set()) {}

  /** All on but those named in `value` (a comma-separated list, or `all`); or the first name it does not know. */
  static parse(value: string): Optimisations | { readonly unknown: string } {
    const names = value
      .split(",")
      .map((name) => name.trim())
      .filter(Boolean);
    if (names.includes("all")) return new Optimisations(new Set(Object.keys(OPTIMISATIONS) as OptimisationName[]));
    const unknown = names.find((name) => !(name in OPTIMISATIONS));
    if (unknown !== undefined) return { unknown };
    return new Optimisations(new Set(names as OptimisationName[]));
  }

  isOn(name: OptimisationName): boolean {
    return !this.off.has(name);
  }

  /** The names turned off, for the log. */
  get turnedOff(): readonly OptimisationName[] {
    return [...this.off];
  }

  /** The core config's `optimisations`. */
  core(): NonNullable<KithConfigInput["optimisations"]> {
    return {
      inboxFront: this.isOn("inbox-front"),
      compactActivities: this.isOn("compact-activities"),
      batchDelivery: this.isOn("batch-delivery"),
      kvMemory: this.isOn("kv-memory"),
    };
  }

  /** The PostgreSQL adapter's options for them. */
  postgres(): { readonly beginWithFirstStatement: boolean; readonly pipelining: boolean } {
    return { beginWithFirstStatement: this.isOn("pg-begin-with-first-statement"), pipelining: this.isOn("pg-pipelining") };
  }
}
