import type { ServiceDeps } from "../service-deps.js";
import { insertReceivedFlag } from "./received-flags-store.js";

/** A report another server sent (a `Flag`) about one of this server's accounts, as the inbox read it. */
export interface IncomingFlag {
  /** The account of the actor that sent it (another server's instance actor, as a rule). */
  readonly reporterId: string;
  readonly targetAccountId: string;
  /** The target's statuses it names that are known here. */
  readonly statusIds: readonly string[];
  readonly comment: string;
  /** The Flag's id, when it has one. */
  readonly uri: string | null;
}

/** Files an incoming report where moderators handle reports (the reports module). */
export type FlagReceiver = (flag: IncomingFlag) => Promise<void>;

/**
 * Where reports from other servers go: to the reports module when it is
 * composed (it sets `receiveWith`), where they are handled and merged like
 * any report; without it, kept in `received_flags` so that none is lost.
 */
export class FlagReceipts {
  #receiver: FlagReceiver | null = null;

  constructor(private readonly deps: Pick<ServiceDeps, "storage" | "clock" | "ids">) {}

  receiveWith(receiver: FlagReceiver): void {
    this.#receiver = receiver;
  }

  /** Files the report; false when it was a Flag already kept. */
  async received(flag: IncomingFlag): Promise<boolean> {
    if (this.#receiver) {
      await this.#receiver(flag);
      return true;
    }
    const { reporterId: accountId, ...rest } = flag;
    return insertReceivedFlag(
      this.deps.storage.db,
      { id: this.deps.ids.next("report"), accountId, ...rest },
      this.deps.clock.now().toISOString(),
    );
  }
}
