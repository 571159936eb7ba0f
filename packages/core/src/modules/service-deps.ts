import type { KithConfig } from "../config.js";
import type { AiProvider } from "../ports/ai.js";
import type { BlobStore } from "../ports/blob.js";
import type { Clock } from "../ports/clock.js";
import type { IdGenerator } from "../ports/ids.js";
import type { Mailer } from "../ports/mail.js";
import type { PubSub } from "../ports/pubsub.js";
import type { Queue } from "../ports/queue.js";
import type { Random } from "../ports/random.js";
import type { SmsSender } from "../ports/sms.js";
import type { Storage } from "../ports/storage.js";
import type { SecretBox } from "../platform/crypto/secret-box.js";
import type { PasswordHasher } from "./auth/password-hasher.js";

/** The ports and shared helpers every service may be given. */
export interface ServiceDeps {
  readonly config: KithConfig;
  readonly storage: Storage;
  readonly queue: Queue;
  readonly pubsub: PubSub;
  readonly mail: Mailer;
  readonly sms: SmsSender;
  readonly blob: BlobStore;
  readonly ai: AiProvider;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly random: Random;
  readonly passwords: PasswordHasher;
  /** Seals what must be read back and must not be read from a copy of the database (`config.secretKeys`). */
  readonly secrets: SecretBox;
}
