import { describe, expect, it } from "vitest";
import { S3Addressing } from "./s3-endpoint.js";

describe("S3 addressing", () => {
  it("puts the bucket in the host name by default, as AWS wants", () => {
    const addressing = new S3Addressing({ url: "https://s3.eu-west-3.amazonaws.com", bucket: "kith-media", forcePathStyle: false });
    expect(addressing.locate("media/a.png")).toEqual({
      origin: "https://kith-media.s3.eu-west-3.amazonaws.com",
      host: "kith-media.s3.eu-west-3.amazonaws.com",
      path: "/media/a.png",
    });
    expect(addressing.locate(null).path).toBe("/");
  });

  it("puts the bucket in the path with forcePathStyle, keeping a non-default port and a base path", () => {
    const addressing = new S3Addressing({ url: "http://storage.internal:9000/s3/", bucket: "kith-media", forcePathStyle: true });
    expect(addressing.locate("media/a b.png")).toEqual({
      origin: "http://storage.internal:9000",
      host: "storage.internal:9000",
      path: "/s3/kith-media/media/a%20b.png",
    });
    expect(addressing.locate(null).path).toBe("/s3/kith-media");
  });

  it("drops the scheme's default port from the host, as HTTP clients do in the Host header", () => {
    const addressing = new S3Addressing({ url: "https://minio.example:443", bucket: "kith", forcePathStyle: true });
    expect(addressing.locate("a").host).toBe("minio.example");
  });

  it.each([
    ["https://user:pass@s3.example", "credentials"],
    ["https://s3.example/?x=1", "query"],
    ["s3.example", "not a URL"],
  ])("refuses the endpoint %s", (url, message) => {
    expect(() => new S3Addressing({ url, bucket: "kith", forcePathStyle: true })).toThrow(message);
  });

  it.each(["ab", "Kith", "kith_media", "-kith", "kith-", "a".repeat(64)])("refuses the bucket name %s", (bucket) => {
    expect(() => new S3Addressing({ url: "https://s3.example", bucket, forcePathStyle: true })).toThrow(/bucket/);
  });
});
