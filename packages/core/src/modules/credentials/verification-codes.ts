import { KithError } from "../../domain/errors.js";
import type { OneTimeSecretRow } from "../../ports/storage-schema.js";
import { insertOneTimeSecret } from "../auth/one-time-secrets-store.js";
import { countWrongAttempt, findLiveSecret, withdrawSecrets } from "./verification-codes-store.js";
import { constantTimeEqual, hashSecret, newNumericCode, newToken } from "../auth/secrets.js";
import type { ServiceDeps } from "../service-deps.js";
import { MAX_CODE_ATTEMPTS } from "./credential-limits.js";

export interface IssueCodeInput {
  readonly kind: string;
  readonly subjectId: string;
  readonly ttlSeconds: number;
  /** Kept with the code and handed back when it is used (e.g. the address or number being verified). */
  readonly payload?: unknown;
  /** The value to store instead of a new random code (a flag bound to an already checked code). */
  readonly value?: string;
}

export interface IssuedCode {
  readonly code: string;
  readonly expiresAt: string;
}

/**
 * Typed codes and the flags of multi-step flows, on `one_time_secrets`:
 * random, stored only as a hash bound to their kind and subject (a 6-digit
 * code alone would collide across accounts), single use through the
 * storage's atomic `consumeOnce`, expiring by the clock port, and spent after
 * `MAX_CODE_ATTEMPTS` wrong tries. A new code of a kind withdraws the older ones.
 */
export class VerificationCodes {
  constructor(private readonly deps: Pick<ServiceDeps, "storage" | "clock" | "ids" | "random">) {}

  async issue(input: IssueCodeInput): Promise<IssuedCode> {
    const code = input.value ?? newNumericCode(this.deps.random);
    const now = this.deps.clock.now();
    const expiresAt = new Date(now.getTime() + input.ttlSeconds * 1000).toISOString();
    await this.deps.storage.transaction(async (trx) => {
      await withdrawSecrets(trx, [input.kind], input.subjectId);
      await insertOneTimeSecret(trx, {
        id: this.deps.ids.next("secret"),
        kind: input.kind,
        secretHash: codeHash(input.kind, input.subjectId, code),
        subjectId: input.subjectId,
        payload: input.payload === undefined ? null : JSON.stringify(input.payload),
        expiresAt,
        createdAt: now.toISOString(),
      });
    });
    return { code, expiresAt };
  }

  /** A flag: a secret nobody types, found by its subject. */
  async raiseFlag(kind: string, subjectId: string, ttlSeconds: number, payload?: unknown): Promise<void> {
    await this.issue({ kind, subjectId, ttlSeconds, payload, value: newToken(this.deps.random) });
  }

  /** Whether a live flag of that kind is up for the subject. */
  async flagIsUp(kind: string, subjectId: string): Promise<boolean> {
    return (await findLiveSecret(this.deps.storage.db, kind, subjectId, this.deps.clock.now().toISOString())) !== null;
  }

  /** Takes the flag down, atomically; false when there was none (or a concurrent call took it). */
  async lowerFlag(kind: string, subjectId: string): Promise<boolean> {
    const now = this.deps.clock.now();
    const row = await findLiveSecret(this.deps.storage.db, kind, subjectId, now.toISOString());
    if (!row) return false;
    return (await this.deps.storage.consumeOnce({ kind, secretHash: row.secret_hash, now })) !== null;
  }

  /**
   * Uses a code: the right one is consumed atomically (of two concurrent
   * uses, one wins); a wrong one counts a try. Throws
   * `credentials.code_invalid`, or `credentials.code_attempts_exceeded` on
   * the try that spends the code.
   */
  async use(kind: string, subjectId: string, code: string): Promise<{ row: OneTimeSecretRow; payload: unknown }> {
    const now = this.deps.clock.now();
    const row = await findLiveSecret(this.deps.storage.db, kind, subjectId, now.toISOString());
    if (!row) throw new KithError("credentials.code_invalid");
    const hash = codeHash(kind, subjectId, code.trim());
    if (!constantTimeEqual(row.secret_hash, hash)) {
      const attempts = await countWrongAttempt(this.deps.storage.db, row.id, MAX_CODE_ATTEMPTS, now.toISOString());
      if (attempts === null || attempts >= MAX_CODE_ATTEMPTS) throw new KithError("credentials.code_attempts_exceeded");
      throw new KithError("credentials.code_invalid");
    }
    const consumed = await this.deps.storage.consumeOnce({ kind, secretHash: hash, now });
    if (!consumed) throw new KithError("credentials.code_invalid");
    return { row: consumed, payload: consumed.payload === null ? null : JSON.parse(consumed.payload) };
  }

  /** Withdraws every live code or flag of these kinds for the subject. */
  async withdraw(kinds: readonly string[], subjectId: string): Promise<void> {
    await withdrawSecrets(this.deps.storage.db, kinds, subjectId);
  }
}

function codeHash(kind: string, subjectId: string, code: string): string {
  return hashSecret(`${kind}:${subjectId}:${code}`);
}
