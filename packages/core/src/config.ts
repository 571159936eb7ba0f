import { z } from "zod";
import { instanceSettingsSchema } from "./domain/instance-settings.js";
import { DEFAULT_LIMITS, type InstanceLimits } from "./domain/limits.js";

/** What an embedder tells Kith about the server it runs as. */
export const kithConfigSchema = z.object({
  /** The public URL of the server, e.g. `https://social.example`. Ids of local actors derive from it. */
  origin: z.url().transform((value) => new URL(value).origin),
  /** Where the server's source code is published, announced as the instance's `source_url`. @default "" */
  sourceUrl: z.string().default(""),
  /** Software version announced in the instance document and NodeInfo. */
  version: z.string().default("0.1.0"),
  /** Lets federation reach loopback and private addresses; for test networks only. @default false */
  allowPrivateAddress: z.boolean().default(false),
  /**
   * Secure mode, Mastodon's "authorized fetch": ActivityPub documents are served only to GETs signed by an actor of a
   * domain that may federate; the instance actor and the actors' keys stay open to all. @default false
   */
  authorizedFetch: z.boolean().default(false),
  /** How long a deleted remote status is remembered, so that its Create arriving late is refused. @default 30 */
  tombstoneRetentionDays: z.number().int().min(1).max(3650).default(30),
  /**
   * How a delivery to another server that failed is tried again, inbox by inbox: `retries` more times, the first
   * after about `baseSeconds`, each wait twice the one before (with jitter: between half and all of it), none longer
   * than `maxSeconds`. The defaults try for two to four days, as Mastodon does (16 retries).
   */
  deliveryRetries: z
    .object({
      retries: z.number().int().min(0).max(100).default(16),
      baseSeconds: z.number().int().min(1).max(86_400).default(60),
      maxSeconds: z
        .number()
        .int()
        .min(1)
        .max(7 * 86_400)
        .default(12 * 3_600),
    })
    .prefault({}),
  /**
   * Distinct days with failed deliveries (and no success between) after which a domain is marked unreachable: its
   * deliveries are then skipped but for one probe a day, until it answers again (a delivery or the probe succeeds, or
   * an activity arrives from it). @default 7, as Mastodon
   */
  unreachableAfterDays: z.number().int().min(1).max(365).default(7),
  /**
   * Speed-ups that rely on what Fedify does inside without promising it, each of which can be turned off should a
   * Fedify release change what it relies on (docs/optimisations.md says what each relies on and gains). @default all on
   */
  optimisations: z
    .object({
      /** Inbox POSTs signed by a key Fedify cached are verified and dispatched without Fedify's inbox handler. */
      inboxFront: z.boolean().default(true),
      /** Common activities are read from their compact JSON without Fedify's JSON-LD parse. */
      compactActivities: z.boolean().default(true),
      /** One send's deliveries are queued as batch jobs of Fedify's outbox messages and signed by Kith. */
      batchDelivery: z.boolean().default(true),
      /** Fedify's cached public keys and signature forms are kept in memory for a minute. */
      kvMemory: z.boolean().default(true),
    })
    .prefault({}),
  /**
   * The server's secret keys (each at least 32 characters, e.g. 32 random bytes in base64url), which seal the secrets
   * Kith must read back (the access token a Web Push carries): the first seals, all open, so a key is rotated by
   * putting a new one first. Without one, the server keeps a key in its own database and warns at start: a copy of the
   * database then holds what opens its secrets. @default []
   */
  secretKeys: z.array(z.string().min(32)).default([]),
  /**
   * Run-time settings' values until an administrator changes them, over the built-in defaults: a test harness opens
   * registrations so (the built-in default is approval). Nothing is stored. @default {}
   */
  settingDefaults: instanceSettingsSchema.partial().strict().default({}),
  /** scrypt cost for password hashes; lowered only in tests. @default 32768 */
  passwordHashCost: z
    .number()
    .int()
    .min(2)
    .default(2 ** 15),
});

export type KithConfigInput = z.input<typeof kithConfigSchema>;

export interface KithConfig extends z.output<typeof kithConfigSchema> {
  readonly limits: InstanceLimits;
}

export function resolveConfig(input: KithConfigInput, limits: InstanceLimits = DEFAULT_LIMITS): KithConfig {
  return { ...kithConfigSchema.parse(input), limits };
}
