/// <reference path="./s3rver.d.ts" />
import { mkdtemp, rm } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import S3rver from "s3rver";
import { sigv4Problem } from "./sigv4-verifier.js";

/** s3rver's built-in credentials. */
export const S3RVER_ACCESS_KEY_ID = "S3RVER";
export const S3RVER_SECRET_ACCESS_KEY = "S3RVER";

export interface RunningS3rver {
  /** Path-style endpoint: `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  readonly port: number;
  readonly bucket: string;
  /** Requests turned away for their signature, with the reason, in arrival order. */
  readonly refused: readonly string[];
  /** Answers the next `count` requests with `status` and S3's SlowDown error, as a throttling or failing store does. */
  failNext(count: number, status?: number): void;
  close(): Promise<void>;
}

/**
 * A real S3-compatible server (s3rver) on a random loopback port, storing in
 * a fresh temp directory, with one empty bucket, and a SigV4 check in front
 * that answers 403 SignatureDoesNotMatch as S3 does. Virtual-hosted requests
 * reach it as `<bucket>.s3.localhost`.
 */
export async function startS3rver(options: { bucket?: string; region?: string } = {}): Promise<RunningS3rver> {
  const bucket = options.bucket ?? "kith-test";
  const region = options.region ?? "us-east-1";
  const directory = await mkdtemp(join(tmpdir(), "kith-s3rver-"));
  const server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory,
    serviceEndpoint: "localhost",
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  const refused: string[] = [];
  let failures: { count: number; status: number } = { count: 0, status: 503 };
  const secrets = new Map([[S3RVER_ACCESS_KEY_ID, S3RVER_SECRET_ACCESS_KEY]]);
  const http = server.httpServer;
  const handlers = http.listeners("request") as ((request: IncomingMessage, response: ServerResponse) => void)[];
  http.removeAllListeners("request");
  http.on("request", (request: IncomingMessage, response: ServerResponse) => {
    if (failures.count > 0) {
      failures = { ...failures, count: failures.count - 1 };
      request.resume();
      response.writeHead(failures.status, { "content-type": "application/xml" });
      response.end(
        '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>',
      );
      return;
    }
    const problem = sigv4Problem(request, secrets, region, new Date());
    if (problem === null) {
      for (const handler of handlers) handler(request, response);
      return;
    }
    refused.push(`${request.method} ${request.url}: ${problem}`);
    request.resume();
    response.writeHead(403, { "content-type": "application/xml", "x-amz-request-id": "verifier" });
    response.end(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SignatureDoesNotMatch</Code><Message>${problem}</Message></Error>`);
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    bucket,
    refused,
    failNext(count, status = 503) {
      failures = { count, status };
    },
    async close() {
      http.closeAllConnections();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
