import { KithError } from "../../domain/errors.js";
import type { TranslationEntity } from "../../mastodon/entities/translation.js";

/** Translates statuses for those who may see them. */
export interface StatusTranslator {
  /** The status's texts in `language` for `viewerId`: 404 when they may not see it, 403 when it may not be translated. */
  translate(statusId: string, viewerId: string, language: string): Promise<TranslationEntity>;
}

/**
 * Translation as the core sees it: unavailable (503, and `translation.enabled`
 * false in the instance document) until a module binds its translator.
 */
export class StatusTranslation implements StatusTranslator {
  #translator: StatusTranslator | null = null;

  /** Translates with `translator` from now on. */
  bind(translator: StatusTranslator): void {
    this.#translator = translator;
  }

  /** Whether statuses can be translated on this server. */
  get enabled(): boolean {
    return this.#translator !== null;
  }

  async translate(statusId: string, viewerId: string, language: string): Promise<TranslationEntity> {
    if (!this.#translator) throw new KithError("translation.unavailable");
    return this.#translator.translate(statusId, viewerId, language);
  }
}
