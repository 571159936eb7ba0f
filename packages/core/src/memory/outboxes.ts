import { getLogger } from "../logging.js";
import type { MailMessage, Mailer } from "../ports/mail.js";
import type { SmsMessage, SmsSender } from "../ports/sms.js";

/** The http(s) links of a mail's text, in order, each once. */
export function linksIn(text: string): string[] {
  return [...new Set(text.match(/https?:\/\/[^\s<>"']+/g) ?? [])];
}

/** Keeps sent mail in memory and logs it: the development default, and what tests read codes from. */
export class MailOutbox implements Mailer {
  readonly sent: MailMessage[] = [];
  readonly #logger = getLogger(["mail"]);

  async send(message: MailMessage): Promise<void> {
    this.sent.push(message);
    this.#logger.info("Mail to {to}: {subject}", { to: message.to, subject: message.subject });
    // Without SMTP, the log is how a self-hoster trying sign-ups reaches the confirmation link.
    if (this.#logger.isEnabledFor("debug")) {
      this.#logger.debug("Links in the mail to {to}: {links}", { to: message.to, links: linksIn(message.text).join(" ") });
    }
  }

  /** The newest message sent to an address. */
  lastTo(address: string): MailMessage | undefined {
    return this.sent.findLast((message) => message.to === address);
  }
}

/** Keeps sent text messages in memory and logs them. */
export class SmsOutbox implements SmsSender {
  readonly sent: SmsMessage[] = [];
  readonly #logger = getLogger(["sms"]);

  async send(message: SmsMessage): Promise<void> {
    this.sent.push(message);
    this.#logger.info("SMS to {to}", { to: message.to });
  }

  lastTo(phone: string): SmsMessage | undefined {
    return this.sent.findLast((message) => message.to === phone);
  }
}
