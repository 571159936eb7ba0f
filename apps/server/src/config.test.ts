import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.js";

describe("server configuration", () => {
  it("defaults to SQLite in ./data, listening on 127.0.0.1:3000", () => {
    const config = loadConfig({});
    expect(config.database).toEqual({ kind: "sqlite", filename: expect.stringMatching(/data\/kith\.sqlite$/) });
    expect(config.host).toBe("127.0.0.1");
    expect(config.port).toBe(3000);
    expect(config.origin).toBe("http://127.0.0.1:3000");
    expect(config.trustedProxies).toEqual(["loopback"]);
    expect(config.allowPrivateAddress).toBe(false);
    expect(config.authorizedFetch).toBe(false);
    expect(config.maxEventLoopDelayMs).toBe(1_000);
  });

  it("refuses a public bind without KITH_ORIGIN, in one line naming it", () => {
    expect(() => loadConfig({ KITH_HOST: "0.0.0.0" })).toThrow(
      "KITH_ORIGIN is required when KITH_HOST (0.0.0.0) is not a loopback address: set it to the public URL, such as https://social.example",
    );
    expect(() => loadConfig({ KITH_HOST: "::" })).toThrow(ConfigError);
    expect(() => loadConfig({ KITH_HOST: "192.0.2.10" })).toThrow(/KITH_ORIGIN is required/);
    expect(loadConfig({ KITH_HOST: "0.0.0.0", KITH_ORIGIN: "https://social.example/" }).origin).toBe("https://social.example");
    expect(loadConfig({ KITH_HOST: "127.0.0.2", KITH_PORT: "8080" }).origin).toBe("http://127.0.0.2:8080");
    expect(loadConfig({ KITH_HOST: "::1" }).origin).toBe("http://[::1]:3000");
    expect(loadConfig({ KITH_HOST: "localhost" }).origin).toBe("http://localhost:3000");
  });

  it("reads a relative data directory from the base directory it is given", () => {
    expect(loadConfig({}, { baseDir: "/srv/kith" }).dataDir).toBe("/srv/kith/data");
    expect(loadConfig({ KITH_DATA_DIR: "state" }, { baseDir: "/srv/kith" }).dataDir).toBe("/srv/kith/state");
    expect(loadConfig({ KITH_DATA_DIR: "/var/lib/kith" }, { baseDir: "/srv/kith" }).dataDir).toBe("/var/lib/kith");
  });

  it("takes the event-loop delay bound of load shedding in milliseconds, 0 turning it off", () => {
    expect(loadConfig({ KITH_MAX_EVENT_LOOP_DELAY_MS: "250" }).maxEventLoopDelayMs).toBe(250);
    expect(loadConfig({ KITH_MAX_EVENT_LOOP_DELAY_MS: "0" }).maxEventLoopDelayMs).toBe(0);
  });

  it("retries deliveries for days by default, and takes another schedule from the environment", () => {
    expect(loadConfig({})).toMatchObject({
      deliveryRetries: { retries: 16, baseSeconds: 60, maxSeconds: 43_200 },
      unreachableAfterDays: 7,
    });
    const config = loadConfig({
      KITH_DELIVERY_RETRIES: "20",
      KITH_DELIVERY_RETRY_BASE_SECONDS: "30",
      KITH_DELIVERY_RETRY_MAX_SECONDS: "86400",
      KITH_UNREACHABLE_AFTER_DAYS: "14",
    });
    expect(config).toMatchObject({ deliveryRetries: { retries: 20, baseSeconds: 30, maxSeconds: 86_400 }, unreachableAfterDays: 14 });
  });

  it("turns secure mode (authorized fetch) on with KITH_AUTHORIZED_FETCH", () => {
    expect(loadConfig({ KITH_AUTHORIZED_FETCH: "true" }).authorizedFetch).toBe(true);
    expect(loadConfig({ KITH_AUTHORIZED_FETCH: "off" }).authorizedFetch).toBe(false);
  });

  it("takes the secret keys, current first, and refuses a short one in one line naming the variable", () => {
    const current = "c".repeat(32);
    const old = "o".repeat(40);
    expect(loadConfig({ KITH_SECRET_KEYS: ` ${current} , ${old} ` }).secretKeys).toEqual([current, old]);
    expect(loadConfig({}).secretKeys).toEqual([]);
    expect(() => loadConfig({ KITH_SECRET_KEYS: "short" })).toThrow(/^KITH_SECRET_KEYS must be comma-separated keys/);
  });

  it("selects PostgreSQL when KITH_DATABASE_URL is a postgres URL", () => {
    const config = loadConfig({ KITH_DATABASE_URL: "postgres://kith@db.internal/kith" });
    expect(config.database).toEqual({ kind: "postgres", url: "postgres://kith@db.internal/kith" });
  });

  it("takes the public origin without path, and booleans in their usual spellings", () => {
    const config = loadConfig({ KITH_ORIGIN: "https://social.example/some/path", KITH_ALLOW_PRIVATE_ADDRESS: "yes" });
    expect(config.origin).toBe("https://social.example");
    expect(config.allowPrivateAddress).toBe(true);
  });

  it.each([
    ["KITH_PORT", "eighty", /KITH_PORT must be a whole number \(got "eighty"\)/],
    ["KITH_PORT", "70000", /KITH_PORT must be between 0 and 65535/],
    ["KITH_ORIGIN", "social.example", /KITH_ORIGIN must be an http\(s\) URL/],
    ["KITH_DATABASE_URL", "mysql://x", /KITH_DATABASE_URL must be a postgres:\/\/ URL/],
    ["KITH_REDIS_URL", "localhost:6379", /KITH_REDIS_URL must be a redis:\/\//],
    ["KITH_LOG_LEVEL", "loud", /KITH_LOG_LEVEL must be one of trace, debug/],
    ["KITH_ALLOW_PRIVATE_ADDRESS", "maybe", /KITH_ALLOW_PRIVATE_ADDRESS/],
    ["KITH_AUTHORIZED_FETCH", "sometimes", /KITH_AUTHORIZED_FETCH/],
    ["KITH_MAX_BODY_BYTES", "10", /KITH_MAX_BODY_BYTES must be at least 1024 bytes/],
    ["KITH_MAX_EVENT_LOOP_DELAY_MS", "soon", /KITH_MAX_EVENT_LOOP_DELAY_MS must be a whole number of milliseconds/],
    ["KITH_TOMBSTONE_RETENTION_DAYS", "0", /KITH_TOMBSTONE_RETENTION_DAYS must be between 1 and 3650/],
    ["KITH_DELIVERY_RETRIES", "many", /KITH_DELIVERY_RETRIES must be a whole number of retries from 0 to 100/],
    ["KITH_DELIVERY_RETRY_BASE_SECONDS", "0", /KITH_DELIVERY_RETRY_BASE_SECONDS must be a whole number of seconds from 1/],
    ["KITH_DELIVERY_RETRY_MAX_SECONDS", "999999999", /KITH_DELIVERY_RETRY_MAX_SECONDS must be a whole number of seconds/],
    ["KITH_UNREACHABLE_AFTER_DAYS", "-1", /KITH_UNREACHABLE_AFTER_DAYS must be a whole number of days from 1 to 365/],
  ])("refuses %s=%s with a message naming the variable", (name, value, message) => {
    let caught: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).variable).toBe(name);
    expect((caught as ConfigError).message).toMatch(message);
    expect((caught as ConfigError).message).not.toContain("\n");
  });
});
