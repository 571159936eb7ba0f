import { MailOutbox, linksIn } from "../../memory/outboxes.js";
import type { Mailer } from "../../ports/mail.js";

/** One message the development outbox kept, as the admin API shows it. */
export interface KeptMail {
  /** Its place in the outbox, oldest 0: stable while the process runs. */
  readonly index: number;
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  /** The links of its text (a confirmation, a password reset), to follow without reading the mail. */
  readonly links: readonly string[];
}

export interface KeptMailPage {
  /** False when mail goes out (SMTP or another mailer): then nothing is kept here. */
  readonly kept: boolean;
  readonly messages: readonly KeptMail[];
}

/**
 * The mail a server without SMTP keeps in memory (the default mailer), for an
 * administrator trying sign-ups to confirm an address without a database tool.
 */
export class MailOutboxView {
  constructor(private readonly mail: Mailer) {}

  /** The newest messages first, at most `limit`, optionally only those to one address. */
  list(limit: number, to?: string): KeptMailPage {
    if (!(this.mail instanceof MailOutbox)) return { kept: false, messages: [] };
    const wanted = to?.toLowerCase();
    const messages: KeptMail[] = [];
    for (let index = this.mail.sent.length - 1; index >= 0 && messages.length < limit; index--) {
      const message = this.mail.sent[index];
      if (!message || (wanted !== undefined && message.to.toLowerCase() !== wanted)) continue;
      messages.push({ index, to: message.to, subject: message.subject, text: message.text, links: linksIn(message.text) });
    }
    return { kept: true, messages };
  }
}
