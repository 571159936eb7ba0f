import { scrypt, timingSafeEqual } from "node:crypto";
import type { Random } from "../../ports/random.js";

/**
 * Passwords are hashed with scrypt, a memory-hard function built into Node:
 * N=2^15, r=8, p=1 takes 32 MiB and tens of milliseconds per guess. The
 * parameters are stored with the hash so they can be raised later.
 */
const DEFAULTS = { N: 2 ** 15, r: 8, p: 1, keyLength: 32 };

function derive(password: string, salt: Buffer, N: number, r: number, p: number, keyLength: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize("NFKC"), salt, keyLength, { N, r, p, maxmem: 256 * N * r }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

export interface PasswordHasherOptions {
  /** scrypt cost; lower it only in tests. @default 32768 */
  readonly cost?: number;
}

export class PasswordHasher {
  readonly #cost: number;

  constructor(
    private readonly random: Random,
    options: PasswordHasherOptions = {},
  ) {
    this.#cost = options.cost ?? DEFAULTS.N;
  }

  async hash(password: string): Promise<string> {
    const salt = Buffer.from(this.random.bytes(16));
    const key = await derive(password, salt, this.#cost, DEFAULTS.r, DEFAULTS.p, DEFAULTS.keyLength);
    return `scrypt$${this.#cost}$${DEFAULTS.r}$${DEFAULTS.p}$${salt.toString("base64url")}$${key.toString("base64url")}`;
  }

  async verify(password: string, stored: string | null): Promise<boolean> {
    const parts = stored?.split("$");
    if (parts?.length !== 6 || parts[0] !== "scrypt") {
      // Spend the same time as a real check, so unknown accounts are not told apart by timing.
      await derive(password, Buffer.alloc(16), this.#cost, DEFAULTS.r, DEFAULTS.p, DEFAULTS.keyLength);
      return false;
    }
    const [, n, r, p, salt, key] = parts as [string, string, string, string, string, string];
    const expected = Buffer.from(key, "base64url");
    const actual = await derive(password, Buffer.from(salt, "base64url"), Number(n), Number(r), Number(p), expected.length);
    return timingSafeEqual(expected, actual);
  }
}
