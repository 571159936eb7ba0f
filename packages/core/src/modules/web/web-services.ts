import type { MailOutboxView } from "./mail-outbox-view.js";
import type { PublicPages } from "./public-pages.js";

/** What the web module's routes use. */
export interface WebServices {
  readonly pages: PublicPages;
  readonly outbox: MailOutboxView;
}
