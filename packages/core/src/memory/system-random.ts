import { randomFillSync } from "node:crypto";
import type { Random } from "../ports/random.js";

/** Bytes drawn from the system's generator at once: each draw is a call into OpenSSL, a few microseconds however short. */
const POOL_SIZE = 4096;
/** Longer requests are drawn on their own. */
const POOLED_UP_TO = 256;

let pool = new Uint8Array(0);
let offset = 0;

/**
 * Random bytes from the system's cryptographic generator (OpenSSL's, as
 * `randomBytes`). Short requests (every id takes 16 bytes, a token 18 to 32)
 * are cut from a pool drawn 4 KB at a time, as Node's `randomUUID` does;
 * each byte is handed out once, as a copy, and the pool is drawn anew when
 * spent.
 */
export const systemRandom: Random = {
  bytes(length: number): Uint8Array {
    if (length > POOLED_UP_TO) return randomFillSync(new Uint8Array(length));
    if (offset + length > pool.length) {
      pool = randomFillSync(new Uint8Array(POOL_SIZE));
      offset = 0;
    }
    const bytes = pool.slice(offset, offset + length);
    pool.fill(0, offset, offset + length);
    offset += length;
    return bytes;
  },
};
