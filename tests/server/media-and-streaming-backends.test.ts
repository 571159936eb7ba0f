/**
 * The server's choice of blob store (KITH_BLOB) and pubsub (KITH_REDIS_URL):
 * configuration, and the adapters it builds working against real servers.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryPubSub } from "@kith/core";
import { eventually } from "@kith/core/testing";
import { RedisPubSub } from "@kith/queue-redis";
import { afterEach, describe, expect, it } from "vitest";
import { assembleKith, pubsubFor, s3BlobOverride } from "../../apps/server/src/assemble.js";
import { ConfigError, loadConfig } from "../../apps/server/src/config.js";
import { S3RVER_ACCESS_KEY_ID, S3RVER_SECRET_ACCESS_KEY, startS3rver } from "../../packages/blob-s3/src/testing/s3rver-harness.js";
import { describeIfRedis, redisUrl } from "../support/real-servers.js";

const S3_ENV = {
  KITH_BLOB: "s3",
  KITH_S3_BUCKET: "kith-media",
  KITH_S3_ACCESS_KEY_ID: "AKIDEXAMPLE",
  KITH_S3_SECRET_ACCESS_KEY: "secret",
};

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("loadConfig accepted the configuration");
}

describe("KITH_BLOB configuration", () => {
  it("keeps media in the data directory by default, and builds no S3 store", async () => {
    const config = loadConfig({ KITH_DATA_DIR: "/srv/kith" });
    expect(config.blob).toEqual({ kind: "local", directory: "/srv/kith/media" });
    expect(await s3BlobOverride(config)).toEqual({});
  });

  it("selects S3 with AWS's endpoint for the region unless one is given", () => {
    expect(loadConfig({ ...S3_ENV, KITH_S3_REGION: "eu-west-3" }).blob).toEqual({
      kind: "s3",
      endpoint: "https://s3.eu-west-3.amazonaws.com",
      region: "eu-west-3",
      bucket: "kith-media",
      accessKeyId: "AKIDEXAMPLE",
      secretAccessKey: "secret",
      forcePathStyle: false,
    });
    expect(loadConfig({ ...S3_ENV, KITH_S3_ENDPOINT: "http://minio.internal:9000", KITH_S3_FORCE_PATH_STYLE: "true" }).blob).toMatchObject({
      endpoint: "http://minio.internal:9000",
      region: "us-east-1",
      forcePathStyle: true,
    });
  });

  it.each([
    [{ KITH_BLOB: "ftp" }, "KITH_BLOB", /must be local or s3/],
    [{ ...S3_ENV, KITH_S3_BUCKET: undefined }, "KITH_S3_BUCKET", /required when KITH_BLOB is s3/],
    [{ ...S3_ENV, KITH_S3_ACCESS_KEY_ID: undefined }, "KITH_S3_ACCESS_KEY_ID", /required/],
    [{ ...S3_ENV, KITH_S3_SECRET_ACCESS_KEY: undefined }, "KITH_S3_SECRET_ACCESS_KEY", /required/],
    [{ ...S3_ENV, KITH_S3_BUCKET: "Media_Bucket" }, "KITH_S3_BUCKET", /bucket name/],
    [{ ...S3_ENV, KITH_S3_ENDPOINT: "minio:9000" }, "KITH_S3_ENDPOINT", /http\(s\) URL/],
    [{ ...S3_ENV, KITH_S3_REGION: "EU West" }, "KITH_S3_REGION", /region name/],
    [{ ...S3_ENV, KITH_S3_FORCE_PATH_STYLE: "maybe" }, "KITH_S3_FORCE_PATH_STYLE", /./],
  ])("refuses %o, naming %s", (env, variable, message) => {
    const defined = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined)) as Record<string, string>;
    const error = configError(defined);
    expect(error.variable).toBe(variable);
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain("\n");
  });

  it("never puts the secret access key in an error message about another variable", () => {
    expect(configError({ ...S3_ENV, KITH_S3_SECRET_ACCESS_KEY: "s3cr3t-value", KITH_S3_BUCKET: "BAD" }).message).not.toContain(
      "s3cr3t-value",
    );
  });
});

describe("the S3 blob store the server builds", () => {
  const cleanups: (() => Promise<void>)[] = [];

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("stores and reads media on a real S3-compatible server from the environment alone", async () => {
    const server = await startS3rver({ bucket: "kith-media" });
    cleanups.push(() => server.close());
    const config = loadConfig({
      KITH_BLOB: "s3",
      KITH_S3_ENDPOINT: server.endpoint,
      KITH_S3_BUCKET: "kith-media",
      KITH_S3_ACCESS_KEY_ID: S3RVER_ACCESS_KEY_ID,
      KITH_S3_SECRET_ACCESS_KEY: S3RVER_SECRET_ACCESS_KEY,
      KITH_S3_FORCE_PATH_STYLE: "1",
    });
    const { blob } = await s3BlobOverride(config);
    if (!blob) throw new Error("no S3 store built");
    await blob.put("media/ab/cd/photo.webp", new TextEncoder().encode("webp"), { contentType: "image/webp" });
    const stored = await blob.get("media/ab/cd/photo.webp");
    expect(stored?.contentType).toBe("image/webp");
    expect(await new Response(stored?.body).text()).toBe("webp");
    expect(server.refused).toEqual([]);
  });

  it("assembles Kith on S3 media and closes without leaving anything open", async () => {
    const server = await startS3rver({ bucket: "kith-media" });
    cleanups.push(() => server.close());
    const dataDir = mkdtempSync(join(tmpdir(), "kith-s3-assembly-"));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const kith = await assembleKith(
      loadConfig({
        KITH_DATA_DIR: dataDir,
        KITH_BLOB: "s3",
        KITH_S3_ENDPOINT: server.endpoint,
        KITH_S3_BUCKET: "kith-media",
        KITH_S3_ACCESS_KEY_ID: S3RVER_ACCESS_KEY_ID,
        KITH_S3_SECRET_ACCESS_KEY: S3RVER_SECRET_ACCESS_KEY,
        KITH_S3_FORCE_PATH_STYLE: "true",
      }),
    );
    await kith.close();
    expect(server.refused).toEqual([]);
  });
});

describe("the pubsub the server builds", () => {
  it("is in-process without KITH_REDIS_URL", async () => {
    const pubsub = await pubsubFor(loadConfig({}));
    expect(pubsub).toBeInstanceOf(MemoryPubSub);
    await pubsub.close();
  });

  describeIfRedis("with KITH_REDIS_URL", () => {
    it("is Redis pub/sub, so two server processes see each other's events", async () => {
      const config = loadConfig({ KITH_REDIS_URL: redisUrl() ?? "" });
      const first = await pubsubFor(config);
      const second = await pubsubFor(config);
      try {
        expect(first).toBeInstanceOf(RedisPubSub);
        const channel = `test:${randomBytes(5).toString("hex")}`;
        const seen: unknown[] = [];
        await second.subscribe(channel, (message) => seen.push(message));
        await first.publish(channel, { event: "update", payload: "{}" });
        await eventually(() => expect(seen).toEqual([{ event: "update", payload: "{}" }]));
      } finally {
        await first.close();
        await second.close();
      }
    });
  });
});
