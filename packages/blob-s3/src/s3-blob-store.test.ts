import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { FakeClock, describeBlobStoreContract } from "@kith/core/testing";
import { Agent, request } from "undici";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { S3BlobStore, type S3BlobStoreOptions } from "./s3-blob-store.js";
import { S3RequestError } from "./s3-request-error.js";
import { type RunningS3rver, S3RVER_ACCESS_KEY_ID, S3RVER_SECRET_ACCESS_KEY, startS3rver } from "./testing/s3rver-harness.js";

const MIB = 1024 * 1024;

/** Resolves every host name to loopback, so `<bucket>.s3.localhost` reaches the test server whatever the system resolver does. */
function loopbackAgent(): Agent {
  return new Agent({
    connect: {
      lookup: (_hostname, options, callback) => {
        if ((options as { all?: boolean }).all)
          (callback as (error: null, addresses: { address: string; family: number }[]) => void)(null, [
            { address: "127.0.0.1", family: 4 },
          ]);
        else callback(null, "127.0.0.1", 4);
      },
    },
  });
}

function pathStyleStore(server: RunningS3rver, overrides: Partial<S3BlobStoreOptions> = {}): S3BlobStore {
  return new S3BlobStore({
    endpoint: server.endpoint,
    bucket: server.bucket,
    accessKeyId: S3RVER_ACCESS_KEY_ID,
    secretAccessKey: S3RVER_SECRET_ACCESS_KEY,
    forcePathStyle: true,
    // S3's smallest part, so the contract's 8 MiB body goes up as a multipart upload.
    partSizeBytes: 5 * MIB,
    ...overrides,
  });
}

describeBlobStoreContract("S3 on s3rver, path style", async () => {
  const server = await startS3rver();
  const store = pathStyleStore(server);
  return {
    store,
    async close() {
      await store.close();
      await server.close();
      expect(server.refused).toEqual([]);
    },
  };
});

describeBlobStoreContract("S3 on s3rver, virtual-hosted style", async () => {
  const server = await startS3rver();
  const dispatcher = loopbackAgent();
  const store = new S3BlobStore({
    endpoint: `http://s3.localhost:${server.port}`,
    bucket: server.bucket,
    accessKeyId: S3RVER_ACCESS_KEY_ID,
    secretAccessKey: S3RVER_SECRET_ACCESS_KEY,
    partSizeBytes: 5 * MIB,
    dispatcher,
  });
  return {
    store,
    async close() {
      await dispatcher.close();
      await server.close();
      expect(server.refused).toEqual([]);
    },
  };
});

describe("S3BlobStore on s3rver", () => {
  let server: RunningS3rver;
  const stores: S3BlobStore[] = [];

  beforeEach(async () => {
    server = await startS3rver();
  });

  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    await server.close();
  });

  function store(overrides: Partial<S3BlobStoreOptions> = {}): S3BlobStore {
    const created = pathStyleStore(server, overrides);
    stores.push(created);
    return created;
  }

  it("is refused with SignatureDoesNotMatch when its secret is wrong, and says so in the error", async () => {
    const wrong = store({ secretAccessKey: "not-the-secret" });
    const error = await wrong.put("a.txt", new Uint8Array([1]), { contentType: "text/plain" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(S3RequestError);
    expect((error as S3RequestError).status).toBe(403);
    expect((error as S3RequestError).code).toBe("SignatureDoesNotMatch");
    expect(server.refused).toHaveLength(1);
  });

  it("is refused when it signs for another region than the server's", async () => {
    await expect(store({ region: "eu-west-3" }).get("a.txt")).rejects.toMatchObject({ status: 403, code: "SignatureDoesNotMatch" });
  });

  it("throws for a missing bucket rather than reporting every key as absent", async () => {
    const elsewhere = store({ bucket: "no-such-bucket" });
    await expect(elsewhere.get("a.txt")).rejects.toMatchObject({ status: 404, code: "NoSuchBucket" });
    await expect(elsewhere.put("a.txt", new Uint8Array([1]), { contentType: "text/plain" })).rejects.toMatchObject({
      code: "NoSuchBucket",
    });
  });

  it("gives a presigned GET URL that fetches the object without credentials, and nothing for a tampered one", async () => {
    const s3 = store({ presignedUrlSeconds: 600 });
    await s3.put("media/ab/photo.png", new TextEncoder().encode("png bytes"), { contentType: "image/png" });
    const url = s3.publicUrl("media/ab/photo.png");
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/kith-test\/media\/ab\/photo\.png\?X-Amz-Algorithm=AWS4-HMAC-SHA256&/);
    const fetched = await request(url ?? "");
    expect(fetched.statusCode).toBe(200);
    expect(fetched.headers["content-type"]).toBe("image/png");
    expect(await fetched.body.text()).toBe("png bytes");
    const tampered = await request((url ?? "").replace("photo.png", "other.png"));
    expect(tampered.statusCode).toBe(403);
    await tampered.body.dump();
  });

  it("refuses a presigned URL once it has expired", async () => {
    const clock = new FakeClock(new Date(Date.now() - 2 * 60 * 60 * 1000));
    const s3 = store({ clock });
    await s3.put("old.txt", new Uint8Array([1]), { contentType: "text/plain" }).catch(() => undefined);
    const fetched = await request(s3.presignedGetUrl("old.txt", 60));
    expect(fetched.statusCode).toBe(403);
    await fetched.body.dump();
    expect(server.refused.at(-1)).toMatch(/expired/);
  });

  it("gives public URLs under publicBaseUrl, which wins over presigning, and none by default", () => {
    expect(store().publicUrl("media/a.png")).toBeNull();
    expect(store({ publicBaseUrl: "https://cdn.example/kith/", presignedUrlSeconds: 60 }).publicUrl("media/a.png")).toBe(
      "https://cdn.example/kith/media/a.png",
    );
    expect(() => store().presignedGetUrl("../a.png", 60)).toThrow(/key/);
  });

  it("streams a body of exactly one part, and one of several parts with an odd tail, byte for byte", async () => {
    const s3 = store();
    for (const total of [5 * MIB, 11 * MIB + 7]) {
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= total) {
            controller.close();
            return;
          }
          const chunk = new Uint8Array(Math.min(777_777, total - sent)).map((_, i) => (sent + i) % 251);
          sent += chunk.byteLength;
          controller.enqueue(chunk);
        },
      });
      expect(await s3.put(`parts-${total}.bin`, body, { contentType: "application/octet-stream" })).toEqual({
        contentType: "application/octet-stream",
        size: total,
      });
      const blob = await s3.get(`parts-${total}.bin`);
      const bytes = new Uint8Array(await new Response(blob?.body).arrayBuffer());
      expect(bytes.byteLength).toBe(total);
      expect(bytes.every((value, i) => value === i % 251)).toBe(true);
    }
  }, 30_000);

  it("keeps the old object when a streamed overwrite fails after its first part went up", async () => {
    const s3 = store();
    await s3.put("video.mp4", new TextEncoder().encode("old"), { contentType: "video/mp4" });
    let sent = 0;
    const failing = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 6 * MIB) {
          controller.error(new Error("client went away"));
          return;
        }
        sent += MIB;
        controller.enqueue(new Uint8Array(MIB).fill(7));
      },
    });
    await expect(s3.put("video.mp4", failing, { contentType: "video/webm" })).rejects.toThrow("client went away");
    const blob = await s3.get("video.mp4");
    expect(blob?.contentType).toBe("video/mp4");
    expect(await new Response(blob?.body).text()).toBe("old");
  });

  it("sends a request again after a 503 or 500, re-signed, and reports the failure once attempts run out", async () => {
    const s3 = store({ retryBaseMs: 1 });
    server.failNext(2, 503);
    await s3.put("retried.txt", new TextEncoder().encode("eventually"), { contentType: "text/plain" });
    server.failNext(2, 500);
    expect(await new Response((await s3.get("retried.txt"))?.body).text()).toBe("eventually");
    server.failNext(3, 503);
    await expect(s3.get("retried.txt")).rejects.toMatchObject({ status: 503, code: "SlowDown" });
    server.failNext(1, 503);
    await expect(store({ maxAttempts: 1 }).delete("retried.txt")).rejects.toMatchObject({ status: 503 });
    expect(server.refused).toEqual([]);
  });

  it("does not retry what a retry cannot fix", async () => {
    server.failNext(1, 400);
    await expect(store({ retryBaseMs: 1 }).get("a.txt")).rejects.toMatchObject({ status: 400 });
    // The one failure was used up by the first attempt; had it retried, this key would read as absent instead.
    expect(await store().get("a.txt")).toBeNull();
  });

  it("refuses part sizes S3 would refuse, and endpoints and buckets that are not valid", () => {
    expect(() => store({ partSizeBytes: MIB })).toThrow(/partSizeBytes/);
    expect(() => store({ maxAttempts: 0 })).toThrow(/maxAttempts/);
    expect(() => store({ endpoint: "ftp://example" })).toThrow(/http/);
    expect(() => store({ endpoint: "not a url" })).toThrow(/URL/);
    expect(() => store({ bucket: "Bad_Bucket" })).toThrow(/bucket/);
  });
});

describe("S3BlobStore failures without a working server", () => {
  it("gives up on a server that never answers after headersTimeoutMs, with an S3RequestError", async () => {
    const silent = createServer(() => {
      // Never answers.
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const store = new S3BlobStore({
      endpoint: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
      bucket: "kith-test",
      accessKeyId: "a",
      secretAccessKey: "b",
      forcePathStyle: true,
      headersTimeoutMs: 200,
      maxAttempts: 2,
      retryBaseMs: 1,
    });
    try {
      const error = await store.get("a.txt").catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(S3RequestError);
      expect((error as S3RequestError).status).toBe(0);
      expect((error as S3RequestError).message).toMatch(/GET a\.txt/);
    } finally {
      await store.close();
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it("reports a refused connection as an S3RequestError without leaking credentials", async () => {
    const store = new S3BlobStore({
      endpoint: "http://127.0.0.1:1",
      bucket: "kith-test",
      accessKeyId: "AKIDSECRETISH",
      secretAccessKey: "very-secret",
      forcePathStyle: true,
    });
    try {
      const error = (await store.delete("a.txt").catch((caught: unknown) => caught)) as S3RequestError;
      expect(error).toBeInstanceOf(S3RequestError);
      expect(error.message).not.toContain("very-secret");
    } finally {
      await store.close();
    }
  });
});
