/**
 * What registration and sign-in ask of the blocks administrators set on
 * email addresses, email domains and IP addresses. The blocks themselves
 * are the sign-up-blocks module's; until a module answers, nothing is blocked.
 */

/** A sign-up as the blocks judge it: its email address, checked and normalised (null when it is not valid), and where it comes from. */
export interface SignUpAttempt {
  readonly email: { readonly address: string; readonly domain: string } | null;
  readonly ip: string | null;
}

export interface SignUpVerdict {
  /** Which part of the attempt a block refuses: the email address (a 422 on the field) or the address it comes from (403). */
  readonly refused: "email" | "ip" | null;
  /** A block that lets the sign-up through on approval only, whatever the server's registration mode. */
  readonly requiresApproval: boolean;
}

export interface AccessBlocks {
  signUp(attempt: SignUpAttempt): Promise<SignUpVerdict>;
  /** False when the address is blocked from any access (Mastodon's `no_access` IP block). */
  addressAllowed(ip: string | null): Promise<boolean>;
}

const OPEN: SignUpVerdict = { refused: null, requiresApproval: false };

/** The blocks as the core asks about them: answered by whichever module binds them, open until then. */
export class AccessBlockDirectory implements AccessBlocks {
  #blocks: AccessBlocks | null = null;

  bind(blocks: AccessBlocks): void {
    this.#blocks = blocks;
  }

  async signUp(attempt: SignUpAttempt): Promise<SignUpVerdict> {
    return this.#blocks ? this.#blocks.signUp(attempt) : OPEN;
  }

  async addressAllowed(ip: string | null): Promise<boolean> {
    return this.#blocks ? this.#blocks.addressAllowed(ip) : true;
  }
}
