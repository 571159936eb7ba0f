/** The part of s3rver's API the tests use (the package ships no types). */
declare module "s3rver" {
  import type { Server } from "node:http";

  interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory?: string;
    serviceEndpoint?: string;
    vhostBuckets?: boolean;
    resetOnClose?: boolean;
    configureBuckets?: { name: string; configs?: string[] }[];
  }

  export default class S3rver {
    constructor(options?: S3rverOptions);
    httpServer: Server;
    run(): Promise<{ address: string; port: number; family: string }>;
    close(): Promise<void>;
  }
}
