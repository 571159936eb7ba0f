import { resolve } from "node:path";
import { z } from "zod";
import { OPTIMISATIONS, Optimisations } from "./optimisations.js";

/**
 * The server's configuration, from environment variables only. Every variable
 * is listed in the README; a bad value stops start-up with one line naming it.
 */

const LOG_LEVELS = ["trace", "debug", "info", "warning", "error", "fatal"] as const;

const booleanFlag = z
  .enum(["true", "false", "1", "0", "yes", "no", "on", "off", ""])
  .transform((value) => ["true", "1", "yes", "on"].includes(value));

const port = z
  .string()
  .regex(/^\d+$/, "must be a whole number")
  .transform(Number)
  .pipe(z.number().int().min(0, "must be between 0 and 65535").max(65_535, "must be between 0 and 65535"));

const positiveBytes = z
  .string()
  .regex(/^\d+$/, "must be a whole number of bytes")
  .transform(Number)
  .pipe(z.number().int().min(1_024, "must be at least 1024 bytes"));

/** A whole number of `unit` from `min` to `max`, written in decimal digits. */
function wholeNumber(min: number, max: number, unit: string) {
  const range = `must be a whole number of ${unit} from ${min} to ${max}`;
  return z.string().regex(/^\d+$/, range).transform(Number).pipe(z.number().int().min(min, range).max(max, range));
}

const envSchema = z.object({
  KITH_ORIGIN: z.url({ protocol: /^https?$/, error: "must be an http(s) URL such as https://social.example" }).optional(),
  KITH_HOST: z.string().min(1, "must not be empty").default("127.0.0.1"),
  KITH_PORT: port.default(3000),
  KITH_DATA_DIR: z.string().min(1, "must not be empty").default("./data"),
  KITH_DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// URL (leave it unset for SQLite)")
    .optional(),
  KITH_REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, "must be a redis:// or rediss:// URL")
    .optional(),
  KITH_ALLOW_PRIVATE_ADDRESS: booleanFlag.default(false),
  KITH_AUTHORIZED_FETCH: booleanFlag.default(false),
  KITH_TOMBSTONE_RETENTION_DAYS: z
    .string()
    .regex(/^\d+$/, "must be a whole number of days")
    .transform(Number)
    .pipe(z.number().int().min(1, "must be between 1 and 3650").max(3650, "must be between 1 and 3650"))
    .default(30),
  KITH_DELIVERY_RETRIES: wholeNumber(0, 100, "retries").default(16),
  KITH_DELIVERY_RETRY_BASE_SECONDS: wholeNumber(1, 86_400, "seconds").default(60),
  KITH_DELIVERY_RETRY_MAX_SECONDS: wholeNumber(1, 7 * 86_400, "seconds").default(12 * 3_600),
  KITH_UNREACHABLE_AFTER_DAYS: wholeNumber(1, 365, "days").default(7),
  KITH_LOG_LEVEL: z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(", ")}` }).default("info"),
  KITH_LOG_FORMAT: z.enum(["text", "json"], { error: "must be text or json" }).default("text"),
  KITH_TRUSTED_PROXIES: z.string().default("loopback"),
  KITH_MAX_BODY_BYTES: positiveBytes.default(1_000_000),
  KITH_MAX_UPLOAD_BYTES: positiveBytes.default(100 * 1024 * 1024),
  KITH_MAX_EVENT_LOOP_DELAY_MS: z
    .string()
    .regex(/^\d+$/, "must be a whole number of milliseconds (0 turns shedding off)")
    .transform(Number)
    .default(1_000),
  KITH_TLS_CERT: z.string().min(1, "must not be empty").optional(),
  KITH_TLS_KEY: z.string().min(1, "must not be empty").optional(),
  KITH_BLOB: z.enum(["local", "s3"], { error: "must be local or s3" }).default("local"),
  KITH_S3_ENDPOINT: z.url({ protocol: /^https?$/, error: "must be an http(s) URL such as https://s3.eu-west-1.amazonaws.com" }).optional(),
  KITH_S3_REGION: z
    .string()
    .regex(/^[a-z0-9-]+$/, "must be a region name such as us-east-1")
    .default("us-east-1"),
  KITH_S3_BUCKET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, "must be a bucket name: 3 to 63 of a-z, 0-9, dots and hyphens")
    .optional(),
  KITH_S3_ACCESS_KEY_ID: z.string().min(1, "must not be empty").optional(),
  KITH_S3_SECRET_ACCESS_KEY: z.string().min(1, "must not be empty").optional(),
  KITH_S3_FORCE_PATH_STYLE: booleanFlag.default(false),
  KITH_SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, "must be an smtp:// or smtps:// URL such as smtps://user:pass@mail.example:465")
    .optional(),
  KITH_MAIL_FROM: z.string().min(3, "must be a sender such as Kith <noreply@social.example>").optional(),
  KITH_SMS_URL: z.url({ protocol: /^https?$/, error: "must be an http(s) URL of the SMS provider" }).optional(),
  KITH_SMS_TOKEN: z.string().min(1, "must not be empty").optional(),
  KITH_OPTIMISATIONS_OFF: z.string().default(""),
  KITH_SECRET_KEYS: z
    .string()
    .transform((value) =>
      value
        .split(",")
        .map((key) => key.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string().min(32, "must be comma-separated keys of at least 32 characters each")))
    .default([]),
});

export type LogLevel = (typeof LOG_LEVELS)[number];

/** Where media goes: the local directory under the data directory, or an S3-compatible object store. */
export type BlobConfig =
  | { readonly kind: "local"; readonly directory: string }
  | {
      readonly kind: "s3";
      readonly endpoint: string;
      readonly region: string;
      readonly bucket: string;
      readonly accessKeyId: string;
      readonly secretAccessKey: string;
      readonly forcePathStyle: boolean;
    };

export interface ServerConfig {
  readonly origin: string;
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly database: { readonly kind: "sqlite"; readonly filename: string } | { readonly kind: "postgres"; readonly url: string };
  readonly redisUrl: string | null;
  readonly allowPrivateAddress: boolean;
  /** Secure mode: ActivityPub documents only for signed GETs (see the core config's authorizedFetch). */
  readonly authorizedFetch: boolean;
  /** Days a deleted remote post is remembered, to refuse its late Create. */
  readonly tombstoneRetentionDays: number;
  /** How failed deliveries to other servers are retried (see the core config's deliveryRetries). */
  readonly deliveryRetries: { readonly retries: number; readonly baseSeconds: number; readonly maxSeconds: number };
  /** Days of failed deliveries after which a domain is marked unreachable. */
  readonly unreachableAfterDays: number;
  readonly logLevel: LogLevel;
  readonly logFormat: "text" | "json";
  readonly trustedProxies: readonly string[];
  readonly maxBodyBytes: number;
  readonly maxUploadBytes: number;
  /** Event-loop delay past which requests are answered 503 with Retry-After; 0 never sheds. */
  readonly maxEventLoopDelayMs: number;
  /** Serve HTTPS with these PEM files; plain HTTP when absent. */
  readonly tls?: { readonly certFile: string; readonly keyFile: string } | null;
  readonly blob: BlobConfig;
  /** Mail over SMTP; null keeps the embedded outbox (kept in memory and logged). */
  readonly smtp?: { readonly url: string; readonly from: string } | null;
  /** SMS through an HTTP provider; null keeps the embedded outbox. */
  readonly sms?: { readonly url: string; readonly token: string } | null;
  /** The speed-ups relying on dependencies' internals that are on (KITH_OPTIMISATIONS_OFF). @default all on */
  readonly optimisations?: Optimisations;
  /** The keys sealing secrets at rest, the current one first (see the core config's secretKeys). @default none */
  readonly secretKeys?: readonly string[];
}

/** A configuration error that names the variable; the CLI prints its message as one line. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    reason: string,
    value: string | undefined,
  ) {
    super(`${variable} ${reason}${value === undefined ? "" : ` (got ${JSON.stringify(value)})`}`);
    this.name = "ConfigError";
  }
}

export interface LoadConfigOptions {
  /**
   * The directory a relative KITH_DATA_DIR (and its default, `data`) is read against: the `kith` command passes the
   * project's root, so that a command run from another directory finds the same database. @default the working directory
   */
  readonly baseDir?: string;
}

/** Reads the configuration from an environment; throws ConfigError on the first bad value. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, options: LoadConfigOptions = {}): ServerConfig {
  const present = Object.fromEntries(
    Object.keys(envSchema.shape)
      .filter((key) => env[key] !== undefined)
      .map((key) => [key, env[key]]),
  );
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const variable = String(issue?.path[0] ?? "configuration");
    throw new ConfigError(variable, issue?.message ?? "is invalid", env[variable]);
  }
  const values = parsed.data;
  const dataDir = resolve(options.baseDir ?? process.cwd(), values.KITH_DATA_DIR);
  const origin = originOf(values);
  return {
    origin,
    host: values.KITH_HOST,
    port: values.KITH_PORT,
    dataDir,
    database: values.KITH_DATABASE_URL
      ? { kind: "postgres", url: values.KITH_DATABASE_URL }
      : { kind: "sqlite", filename: resolve(dataDir, "kith.sqlite") },
    redisUrl: values.KITH_REDIS_URL ?? null,
    allowPrivateAddress: values.KITH_ALLOW_PRIVATE_ADDRESS,
    authorizedFetch: values.KITH_AUTHORIZED_FETCH,
    tombstoneRetentionDays: values.KITH_TOMBSTONE_RETENTION_DAYS,
    deliveryRetries: {
      retries: values.KITH_DELIVERY_RETRIES,
      baseSeconds: values.KITH_DELIVERY_RETRY_BASE_SECONDS,
      maxSeconds: values.KITH_DELIVERY_RETRY_MAX_SECONDS,
    },
    unreachableAfterDays: values.KITH_UNREACHABLE_AFTER_DAYS,
    logLevel: values.KITH_LOG_LEVEL,
    logFormat: values.KITH_LOG_FORMAT,
    trustedProxies: values.KITH_TRUSTED_PROXIES.split(",")
      .map((entry) => entry.trim())
      .filter(Boolean),
    maxBodyBytes: values.KITH_MAX_BODY_BYTES,
    maxUploadBytes: values.KITH_MAX_UPLOAD_BYTES,
    maxEventLoopDelayMs: values.KITH_MAX_EVENT_LOOP_DELAY_MS,
    tls: tlsConfig(values),
    blob: blobConfig(values, dataDir),
    smtp: smtpConfig(values, origin),
    sms: smsConfig(values),
    optimisations: optimisationsOf(values.KITH_OPTIMISATIONS_OFF),
    secretKeys: values.KITH_SECRET_KEYS,
  };
}

/**
 * KITH_ORIGIN, or for a server only this machine reaches, its listening address. A server listening on a public
 * address needs its public name said: actor ids derive from the origin and other servers keep them for good.
 */
function originOf(values: z.infer<typeof envSchema>): string {
  if (values.KITH_ORIGIN) return new URL(values.KITH_ORIGIN).origin;
  if (!isLoopbackHost(values.KITH_HOST)) {
    throw new ConfigError(
      "KITH_ORIGIN",
      `is required when KITH_HOST (${values.KITH_HOST}) is not a loopback address: set it to the public URL, such as https://social.example`,
      undefined,
    );
  }
  const host = values.KITH_HOST.includes(":") && !values.KITH_HOST.startsWith("[") ? `[${values.KITH_HOST}]` : values.KITH_HOST;
  return `http://${host}:${values.KITH_PORT}`;
}

/** 127.0.0.0/8, ::1 and localhost: addresses no other machine reaches. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  return bare === "localhost" || bare === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

function optimisationsOf(value: string): Optimisations {
  const parsed = Optimisations.parse(value);
  if (parsed instanceof Optimisations) return parsed;
  throw new ConfigError(
    "KITH_OPTIMISATIONS_OFF",
    `names ${parsed.unknown}, which is none of all, ${Object.keys(OPTIMISATIONS).join(", ")}`,
    value,
  );
}

/** SMTP when KITH_SMTP_URL is set; the sender defaults to noreply at the origin's host. */
function smtpConfig(values: z.infer<typeof envSchema>, origin: string): { url: string; from: string } | null {
  if (values.KITH_SMTP_URL === undefined) return null;
  return { url: values.KITH_SMTP_URL, from: values.KITH_MAIL_FROM ?? `noreply@${new URL(origin).hostname}` };
}

/** The HTTP SMS provider when KITH_SMS_URL is set; it needs KITH_SMS_TOKEN. */
function smsConfig(values: z.infer<typeof envSchema>): { url: string; token: string } | null {
  if (values.KITH_SMS_URL === undefined) return null;
  if (values.KITH_SMS_TOKEN === undefined) throw new ConfigError("KITH_SMS_TOKEN", "is required when KITH_SMS_URL is set", undefined);
  return { url: values.KITH_SMS_URL, token: values.KITH_SMS_TOKEN };
}

/** The blob store KITH_BLOB selects; with s3, the bucket and credentials are required (the endpoint defaults to AWS's for the region). */
function blobConfig(values: z.infer<typeof envSchema>, dataDir: string): BlobConfig {
  if (values.KITH_BLOB === "local") return { kind: "local", directory: resolve(dataDir, "media") };
  const required = (name: "KITH_S3_BUCKET" | "KITH_S3_ACCESS_KEY_ID" | "KITH_S3_SECRET_ACCESS_KEY"): string => {
    const value = values[name];
    if (value === undefined) throw new ConfigError(name, "is required when KITH_BLOB is s3", undefined);
    return value;
  };
  return {
    kind: "s3",
    endpoint: values.KITH_S3_ENDPOINT ?? `https://s3.${values.KITH_S3_REGION}.amazonaws.com`,
    region: values.KITH_S3_REGION,
    bucket: required("KITH_S3_BUCKET"),
    accessKeyId: required("KITH_S3_ACCESS_KEY_ID"),
    secretAccessKey: required("KITH_S3_SECRET_ACCESS_KEY"),
    forcePathStyle: values.KITH_S3_FORCE_PATH_STYLE,
  };
}

/** HTTPS when both KITH_TLS_CERT and KITH_TLS_KEY name files; one without the other is an error. */
function tlsConfig(values: {
  KITH_TLS_CERT?: string | undefined;
  KITH_TLS_KEY?: string | undefined;
}): { certFile: string; keyFile: string } | null {
  if (values.KITH_TLS_CERT === undefined && values.KITH_TLS_KEY === undefined) return null;
  if (values.KITH_TLS_CERT === undefined) throw new ConfigError("KITH_TLS_CERT", "is required when KITH_TLS_KEY is set", undefined);
  if (values.KITH_TLS_KEY === undefined) throw new ConfigError("KITH_TLS_KEY", "is required when KITH_TLS_CERT is set", undefined);
  return { certFile: resolve(values.KITH_TLS_CERT), keyFile: resolve(values.KITH_TLS_KEY) };
}

/** The variables with their meaning and default, for the README and `kith help`. */
export const CONFIG_VARIABLES: readonly { name: string; default: string; meaning: string }[] = [
  {
    name: "KITH_ORIGIN",
    default: "http://KITH_HOST:KITH_PORT on a loopback KITH_HOST; required otherwise",
    meaning: "Public URL of the server; local actor ids derive from it",
  },
  { name: "KITH_HOST", default: "127.0.0.1", meaning: "Address to listen on (0.0.0.0 for all interfaces)" },
  { name: "KITH_PORT", default: "3000", meaning: "Port to listen on" },
  {
    name: "KITH_DATA_DIR",
    default: "data in the project's root",
    meaning: "Directory of the SQLite database and local media; a relative path is read from the project's root",
  },
  { name: "KITH_DATABASE_URL", default: "(unset: SQLite)", meaning: "postgres://... selects PostgreSQL" },
  {
    name: "KITH_REDIS_URL",
    default: "(unset: jobs in the database)",
    meaning: "redis://... keeps jobs in Redis (BullMQ), for many workers",
  },
  {
    name: "KITH_ALLOW_PRIVATE_ADDRESS",
    default: "false",
    meaning: "Let federation reach loopback and private addresses (test networks only)",
  },
  {
    name: "KITH_AUTHORIZED_FETCH",
    default: "false",
    meaning:
      "Secure mode (Mastodon's authorized fetch): ActivityPub documents only for signed GETs of domains that may federate; the instance actor and actor keys stay open",
  },
  {
    name: "KITH_TOMBSTONE_RETENTION_DAYS",
    default: "30",
    meaning: "Days a deleted remote post is remembered, so that its Create arriving late is refused",
  },
  {
    name: "KITH_DELIVERY_RETRIES",
    default: "16",
    meaning: "Times a failed delivery to another server's inbox is tried again (two to four days with the waits below, as Mastodon)",
  },
  {
    name: "KITH_DELIVERY_RETRY_BASE_SECONDS",
    default: "60",
    meaning: "About how long the first retry of a delivery waits; each later wait doubles (with jitter: half to all of it)",
  },
  { name: "KITH_DELIVERY_RETRY_MAX_SECONDS", default: "43200", meaning: "The longest wait between two tries of a delivery (12 hours)" },
  {
    name: "KITH_UNREACHABLE_AFTER_DAYS",
    default: "7",
    meaning:
      "Distinct days of failed deliveries after which a domain is unreachable: its deliveries are skipped but for a daily probe, until it answers or sends an activity",
  },
  { name: "KITH_LOG_LEVEL", default: "info", meaning: "trace, debug, info, warning, error or fatal" },
  { name: "KITH_LOG_FORMAT", default: "text", meaning: "text for people, json for log collectors (one JSON object a line)" },
  {
    name: "KITH_TRUSTED_PROXIES",
    default: "loopback",
    meaning: "Comma-separated addresses/CIDRs whose X-Forwarded-* headers are believed",
  },
  { name: "KITH_MAX_BODY_BYTES", default: "1000000", meaning: "Largest JSON or form request body" },
  { name: "KITH_MAX_UPLOAD_BYTES", default: "104857600", meaning: "Largest upload (multipart or binary body)" },
  {
    name: "KITH_MAX_EVENT_LOOP_DELAY_MS",
    default: "1000",
    meaning: "Event-loop delay past which requests are answered 503 with Retry-After (health checks excepted); 0 never sheds",
  },
  { name: "KITH_TLS_CERT", default: "(unset: plain HTTP)", meaning: "PEM certificate (chain) file: serve HTTPS; needs KITH_TLS_KEY" },
  { name: "KITH_TLS_KEY", default: "(unset: plain HTTP)", meaning: "PEM private key file of KITH_TLS_CERT" },
  {
    name: "KITH_BLOB",
    default: "local",
    meaning: "Where media is stored: local (KITH_DATA_DIR/media) or s3 (an S3-compatible object store)",
  },
  {
    name: "KITH_S3_ENDPOINT",
    default: "https://s3.KITH_S3_REGION.amazonaws.com",
    meaning: "URL of the S3-compatible store (MinIO, Garage, R2, ...)",
  },
  { name: "KITH_S3_REGION", default: "us-east-1", meaning: "Region requests are signed for" },
  { name: "KITH_S3_BUCKET", default: "(required with KITH_BLOB=s3)", meaning: "Bucket media is stored in" },
  { name: "KITH_S3_ACCESS_KEY_ID", default: "(required with KITH_BLOB=s3)", meaning: "Access key id for the store" },
  { name: "KITH_S3_SECRET_ACCESS_KEY", default: "(required with KITH_BLOB=s3)", meaning: "Secret access key for the store" },
  {
    name: "KITH_S3_FORCE_PATH_STYLE",
    default: "false",
    meaning: "Address the bucket in the path (host/bucket/key), as most self-hosted stores want",
  },
  {
    name: "KITH_SMTP_URL",
    default: "(unset: mail kept in an outbox and logged)",
    meaning: "smtp://user:pass@host:587 or smtps://user:pass@host:465: send mail (codes, notices) over SMTP",
  },
  { name: "KITH_MAIL_FROM", default: "noreply@<origin host>", meaning: "Sender of the server's mail" },
  {
    name: "KITH_SMS_URL",
    default: "(unset: SMS kept in an outbox and logged)",
    meaning: "URL of the HTTP SMS provider; each message is POSTed as JSON {to, body}",
  },
  { name: "KITH_SMS_TOKEN", default: "(required with KITH_SMS_URL)", meaning: "Bearer token sent to the SMS provider" },
  {
    name: "KITH_SECRET_KEYS",
    default: "(unset: a key kept in the database, with a warning)",
    meaning:
      "Comma-separated keys (32+ characters each, e.g. `openssl rand -base64 32`) sealing secrets at rest; the first seals, all open, so a new key goes first to rotate",
  },
  {
    name: "KITH_OPTIMISATIONS_OFF",
    default: "(unset: all on)",
    meaning: `Comma-separated speed-ups to turn off, or all: those that rely on dependencies' internals (docs/optimisations.md): ${Object.keys(OPTIMISATIONS).join(", ")}`,
  },
];
