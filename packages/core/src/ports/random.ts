/** Cryptographically secure randomness; a port so tests can make it repeatable. */
export interface Random {
  /** `length` random bytes. */
  bytes(length: number): Uint8Array;
}
