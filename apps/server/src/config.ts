import { resolve } from "node:path";
import { z } from "zod";

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
  KITH_LOG_LEVEL: z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(", ")}` }).default("info"),
  KITH_LOG_FORMAT: z.enum(["text", "json"], { error: "must be text or json" }).default("text"),
  KITH_TRUSTED_PROXIES: z.string().default("loopback"),
  KITH_MAX_BODY_BYTES: positiveBytes.default(1_000_000),
  KITH_MAX_UPLOAD_BYTES: positiveBytes.default(100 * 1024 * 1024),
});

export type LogLevel = (typeof LOG_LEVELS)[number];

export interface ServerConfig {
  readonly origin: string;
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly database: { readonly kind: "sqlite"; readonly filename: string } | { readonly kind: "postgres"; readonly url: string };
  readonly redisUrl: string | null;
  readonly allowPrivateAddress: boolean;
  readonly logLevel: LogLevel;
  readonly logFormat: "text" | "json";
  readonly trustedProxies: readonly string[];
  readonly maxBodyBytes: number;
  readonly maxUploadBytes: number;
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

/** Reads the configuration from an environment; throws ConfigError on the first bad value. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
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
  const dataDir = resolve(values.KITH_DATA_DIR);
  const origin = values.KITH_ORIGIN
    ? new URL(values.KITH_ORIGIN).origin
    : `http://${values.KITH_HOST === "0.0.0.0" || values.KITH_HOST === "::" ? "localhost" : values.KITH_HOST}:${values.KITH_PORT}`;
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
    logLevel: values.KITH_LOG_LEVEL,
    logFormat: values.KITH_LOG_FORMAT,
    trustedProxies: values.KITH_TRUSTED_PROXIES.split(",")
      .map((entry) => entry.trim())
      .filter(Boolean),
    maxBodyBytes: values.KITH_MAX_BODY_BYTES,
    maxUploadBytes: values.KITH_MAX_UPLOAD_BYTES,
  };
}

/** The variables with their meaning and default, for the README and `kith help`. */
export const CONFIG_VARIABLES: readonly { name: string; default: string; meaning: string }[] = [
  { name: "KITH_ORIGIN", default: "http://KITH_HOST:KITH_PORT", meaning: "Public URL of the server; local actor ids derive from it" },
  { name: "KITH_HOST", default: "127.0.0.1", meaning: "Address to listen on (0.0.0.0 for all interfaces)" },
  { name: "KITH_PORT", default: "3000", meaning: "Port to listen on" },
  { name: "KITH_DATA_DIR", default: "./data", meaning: "Directory of the SQLite database and local media" },
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
  { name: "KITH_LOG_LEVEL", default: "info", meaning: "trace, debug, info, warning, error or fatal" },
  { name: "KITH_LOG_FORMAT", default: "text", meaning: "text for people, json for log collectors (one JSON object a line)" },
  {
    name: "KITH_TRUSTED_PROXIES",
    default: "loopback",
    meaning: "Comma-separated addresses/CIDRs whose X-Forwarded-* headers are believed",
  },
  { name: "KITH_MAX_BODY_BYTES", default: "1000000", meaning: "Largest JSON or form request body" },
  { name: "KITH_MAX_UPLOAD_BYTES", default: "104857600", meaning: "Largest upload (multipart or binary body)" },
];
